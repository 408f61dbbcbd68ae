package javascript

import (
	"container/list"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// programName is the file name of programs in stack traces.
const programName = "program.js"

// wrapPrefix and wrapSuffix turn a program into an async function called at
// once, so that it may await and return at top level. The prefix shares the
// program's first line, so line numbers need no correction; columns of the
// first line are shifted by len(wrapPrefix).
const (
	wrapPrefix = "(async function () {"
	wrapSuffix = "\n})()"
)

// Defaults of the cache of compiled programs (see [WithProgramCache]).
const (
	// DefaultProgramCacheEntries is the number of compiled programs an
	// engine keeps.
	DefaultProgramCacheEntries = 256
	// DefaultProgramCacheBytes bounds the total source size of the
	// programs an engine keeps.
	DefaultProgramCacheBytes = 16 << 20
)

// WithProgramCache sets how many compiled programs the engine keeps
// (default [DefaultProgramCacheEntries]), and the most source bytes they
// may add up to (default [DefaultProgramCacheBytes]); the least recently
// used go first. A program run again then skips parsing, compiling and,
// for TypeScript, transpiling. A compiled program holds no state of the
// executions that ran it: each execution still gets a runtime of its own.
// entries <= 0 turns the cache off.
func WithProgramCache(entries, bytes int) Option {
	return func(e *Engine) {
		if entries <= 0 || bytes <= 0 {
			e.cache = nil
			return
		}
		e.cache = newProgramCache(entries, bytes)
	}
}

// compiled is a program ready to run, in any number of runtimes at once.
type compiled struct {
	prog *goja.Program
	pos  *positionMap
}

// compile turns a program's source into what runs, from the cache when it
// was compiled before.
func (e *Engine) compile(code string) (*compiled, error) {
	if c := e.cache.get(code); c != nil {
		return c, nil
	}
	src := wrapPrefix + code + wrapSuffix
	pos := &positionMap{code: code}
	if e.transform != nil {
		var err error
		src, pos.consumer, err = e.transform(code)
		if err != nil {
			return nil, err
		}
	}
	// Source-map comments are ignored: goja reads the file named by a
	// "//# sourceMappingURL=" comment on the source's last line from the
	// host's disk. The wrapper's closing line keeps a program's comment
	// from being last; this keeps it so whatever the wrapper becomes.
	ast, err := parser.ParseFile(nil, programName, src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, syntaxError(err, pos)
	}
	returnLast(ast)
	prog, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, syntaxError(err, pos)
	}
	c := &compiled{prog: prog, pos: pos}
	e.cache.put(code, c)
	return c, nil
}

// programCache is a bounded cache of compiled programs, keyed by source,
// that drops the least recently used first. It is safe for concurrent use;
// the nil cache keeps nothing.
type programCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // of *cacheEntry, most recently used first
	entries    map[string]*list.Element
}

type cacheEntry struct {
	code string
	c    *compiled
}

func newProgramCache(entries, bytes int) *programCache {
	return &programCache{maxEntries: entries, maxBytes: bytes, order: list.New(), entries: map[string]*list.Element{}}
}

func (pc *programCache) get(code string) *compiled {
	if pc == nil {
		return nil
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	el, ok := pc.entries[code]
	if !ok {
		return nil
	}
	pc.order.MoveToFront(el)
	return el.Value.(*cacheEntry).c
}

func (pc *programCache) put(code string, c *compiled) {
	if pc == nil || len(code) > pc.maxBytes {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if el, ok := pc.entries[code]; ok {
		el.Value.(*cacheEntry).c = c
		pc.order.MoveToFront(el)
		return
	}
	pc.entries[code] = pc.order.PushFront(&cacheEntry{code: code, c: c})
	pc.bytes += len(code)
	for len(pc.entries) > pc.maxEntries || pc.bytes > pc.maxBytes {
		old := pc.order.Back()
		ent := old.Value.(*cacheEntry)
		pc.order.Remove(old)
		delete(pc.entries, ent.code)
		pc.bytes -= len(ent.code)
	}
}

// len returns the number of programs kept and their total source bytes.
func (pc *programCache) len() (entries, bytes int) {
	if pc == nil {
		return 0, 0
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return len(pc.entries), pc.bytes
}

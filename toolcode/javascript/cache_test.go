package javascript

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgramCacheBoundedByEntries(t *testing.T) {
	pc := newProgramCache(3, 1<<20)
	progs := map[string]*compiled{}
	for i := range 5 {
		code := fmt.Sprintf("return %d;", i)
		progs[code] = &compiled{}
		pc.put(code, progs[code])
	}
	n, _ := pc.len()
	assert.Equal(t, 3, n)
	assert.Nil(t, pc.get("return 0;"), "the oldest went first")
	assert.Nil(t, pc.get("return 1;"))
	for i := 2; i < 5; i++ {
		code := fmt.Sprintf("return %d;", i)
		assert.Same(t, progs[code], pc.get(code))
	}
}

func TestProgramCacheDropsLeastRecentlyUsed(t *testing.T) {
	pc := newProgramCache(2, 1<<20)
	a, b, c := &compiled{}, &compiled{}, &compiled{}
	pc.put("a", a)
	pc.put("b", b)
	require.Same(t, a, pc.get("a")) // a is now the most recent
	pc.put("c", c)
	assert.Same(t, a, pc.get("a"))
	assert.Nil(t, pc.get("b"))
	assert.Same(t, c, pc.get("c"))
}

func TestProgramCacheBoundedByBytes(t *testing.T) {
	pc := newProgramCache(100, 10)
	pc.put("12345", &compiled{})
	pc.put("67890", &compiled{})
	pc.put("abc", &compiled{})
	n, bytes := pc.len()
	assert.Equal(t, 2, n)
	assert.Equal(t, 8, bytes)
	assert.Nil(t, pc.get("12345"))
	pc.put("this source is longer than the whole cache", &compiled{})
	assert.Nil(t, pc.get("this source is longer than the whole cache"), "a program larger than the cache is not kept")
	n, bytes = pc.len()
	assert.Equal(t, 2, n)
	assert.Equal(t, 8, bytes)
}

func TestProgramCacheReplaceKeepsAccounts(t *testing.T) {
	pc := newProgramCache(10, 100)
	first, second := &compiled{}, &compiled{}
	pc.put("code", first)
	pc.put("code", second)
	n, bytes := pc.len()
	assert.Equal(t, 1, n)
	assert.Equal(t, 4, bytes)
	assert.Same(t, second, pc.get("code"))
}

func TestProgramCacheConcurrent(t *testing.T) {
	pc := newProgramCache(8, 1<<20)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				code := fmt.Sprintf("return %d;", (i+g)%16)
				if pc.get(code) == nil {
					pc.put(code, &compiled{})
				}
			}
		})
	}
	wg.Wait()
	n, _ := pc.len()
	assert.LessOrEqual(t, n, 8)
}

func TestNilProgramCacheKeepsNothing(t *testing.T) {
	var pc *programCache
	pc.put("x", &compiled{})
	assert.Nil(t, pc.get("x"))
	e := New(WithProgramCache(0, 0))
	assert.Nil(t, e.cache)
}

// TestEngineCachesCompiledPrograms checks that a program run again comes
// from the cache, and that a cached program starts from fresh globals: the
// compiled program holds no state of the runs that used it.
func TestEngineCachesCompiledPrograms(t *testing.T) {
	for _, e := range []*Engine{New(), NewTypeScript()} {
		t.Run(e.Language(), func(t *testing.T) {
			code := `const before = typeof globalThis.leaked; globalThis.leaked = 1; Object.prototype.polluted = 1; before`
			first, err := e.compile(code)
			require.NoError(t, err)
			again, err := e.compile(code)
			require.NoError(t, err)
			assert.Same(t, first, again)
			for range 2 {
				v, err := e.Execute(context.Background(), testProgram(t, code))
				require.NoError(t, err)
				assert.JSONEq(t, `"undefined"`, string(v), "a global of an earlier run leaked")
			}
			_, err = e.compile("return (")
			require.Error(t, err)
			n, _ := e.cache.len()
			assert.Equal(t, 1, n, "programs that do not compile are not kept")
		})
	}
}

// TestCachedTypeScriptConcurrent runs one cached TypeScript program from
// several goroutines: its compiled form and source map are shared, and
// each run still reports the error at the TypeScript position.
func TestCachedTypeScriptConcurrent(t *testing.T) {
	e := NewTypeScript()
	code := "const n: number = 1;\nconst o: any = null;\no.field;"
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = e.Execute(context.Background(), testProgram(t, code))
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.Error(t, err)
		assert.Contains(t, err.Error(), "line 3, column 3")
	}
	n, _ := e.cache.len()
	assert.Equal(t, 1, n)
}

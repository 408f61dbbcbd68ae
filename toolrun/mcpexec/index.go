package mcpexec

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// Backend returns the backend of the tools of a server: kind
// [toolmodel.BackendMCP], naming the server.
func Backend(server string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: server}}
}

// RegisterTools registers every tool a server lists in idx, in the given
// namespace, served by [Backend](server), in one atomic step
// ([toolindex.Index.RegisterMany]). It is a one-time copy: to keep an
// index in step with a server, give the index a [Source] instead.
func (m *Manager) RegisterTools(ctx context.Context, idx toolindex.Index, server, namespace string, opts ...toolindex.RegisterOption) error {
	tools, err := m.ListTools(ctx, server)
	if err != nil {
		return err
	}
	return idx.RegisterMany(ctx, m.Registrations(server, namespace, tools), opts...)
}

// SkippedTool is a tool a server lists that cannot become a metatools
// tool, such as one whose name has characters a tool ID cannot hold.
type SkippedTool struct {
	// Name is the tool's name, as the server gives it.
	Name string
	// Err says why it was skipped.
	Err error
}

// Registrations turns the tools a server lists into registrations in
// namespace, each with the backend [Backend](server). A tool that is not
// a valid metatools tool (an invalid name, an input schema that is not
// an object), or whose definition is larger than the limit, is skipped,
// not fatal; so are the tools past the most one server may have
// ([WithToolLimits]). [Manager.SkippedTools] reports them until the
// server's tools are converted again, and one warning per conversion
// names the server, how many were skipped and the first of them. The
// other tools are kept.
func (m *Manager) Registrations(server, namespace string, tools []*mcp.Tool) []toolindex.Registration {
	backend := Backend(server)
	var skipped []SkippedTool
	if len(tools) > m.opts.maxTools {
		skipped = append(skipped, SkippedTool{Name: shownName(tools[m.opts.maxTools].Name), Err: errors.Errorf(errors.ResourceExhausted,
			"the server lists more than %d tools, the most one server may have: this one and those after it are left out", m.opts.maxTools)})
		tools = tools[:m.opts.maxTools]
	}
	regs := make([]toolindex.Registration, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		err := m.checkSize(t)
		var tool toolmodel.Tool
		if err == nil {
			tool, err = toolmodel.FromMCP(t, namespace)
		}
		if err == nil {
			err = tool.Validate()
		}
		if err != nil {
			skipped = append(skipped, SkippedTool{Name: shownName(t.Name), Err: err})
			continue
		}
		regs = append(regs, toolindex.Registration{Tool: tool, Backend: backend})
	}
	if len(skipped) > 0 {
		first := skipped[0]
		m.opts.logger.Warn("MCP tools skipped", "server", server, "skipped", len(skipped), "kept", len(regs),
			"first", first.Name, "error", first.Err)
	}
	if srv, err := m.server(server); err == nil {
		srv.mu.Lock()
		srv.skipped = skipped
		srv.mu.Unlock()
	}
	return regs
}

// maxShownName is the most bytes of a skipped tool's name that are kept
// and reported: a hostile server may name a tool with megabytes.
const maxShownName = 128

// shownName is a tool's name as a skipped tool reports it.
func shownName(name string) string {
	if len(name) <= maxShownName {
		return name
	}
	return toolmodel.CutUTF8(name, maxShownName) + "…"
}

// checkSize refuses a tool whose definition is larger than the limit, with
// code [errors.ResourceExhausted].
func (m *Manager) checkSize(t *mcp.Tool) error {
	raw, err := json.Marshal(t)
	if err != nil {
		return errors.Errorf(errors.InvalidArgument, "the tool's definition is not JSON: %v", err)
	}
	if len(raw) > m.opts.maxToolBytes {
		return errors.Errorf(errors.ResourceExhausted, "the tool's definition is %d bytes, the most is %d", len(raw), m.opts.maxToolBytes)
	}
	return nil
}

// SkippedTools returns the tools of a server that the last conversion of
// its tools ([Manager.Registrations], a [Source] listing, or
// [Manager.RegisterTools]) skipped, in the server's order; none for an
// unknown server. It is safe for concurrent use.
func (m *Manager) SkippedTools(server string) []SkippedTool {
	srv, err := m.server(server)
	if err != nil {
		return nil
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return slices.Clone(srv.skipped)
}

// Source is a [toolindex.Source] listing the tools of one server of a
// [Manager], in a namespace: an index given it ([toolindex.WithSource])
// loads, updates and removes the server's tools on each
// [toolindex.Index.Refresh], and with [Manager.AutoRefresh], whenever the
// server reports that they changed.
type Source struct {
	m         *Manager
	server    string
	namespace string
}

var _ toolindex.Source = (*Source)(nil)

// Source returns the source of a server's tools, registered in namespace.
// The server need not be configured yet: listing it fails with
// [errors.NotFound] until it is.
func (m *Manager) Source(server, namespace string) *Source {
	return &Source{m: m, server: server, namespace: namespace}
}

// Identity implements [toolindex.Source]: "mcp:<server>".
func (s *Source) Identity() string { return identity(s.server) }

// ListTools implements [toolindex.Source]: the server's tools, each with
// the backend [Backend](server). A tool that is not a valid metatools
// tool is skipped and reported, the others are kept
// ([Manager.Registrations]).
func (s *Source) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	tools, err := s.m.ListTools(ctx, s.server)
	if err != nil {
		return nil, err
	}
	return s.m.Registrations(s.server, s.namespace, tools), nil
}

// AutoRefresh keeps idx in step with the servers whose tools it lists
// through a [Source] of this manager: when such a server reports that its
// tools changed (notifications/tools/list_changed), the manager refreshes
// its source in idx ([toolindex.Index.Refresh]) after the refresh delay
// ([WithRefreshDelay]). The reports that arrive meanwhile, from any
// server, are served by that same refresh, which lists again only the
// servers that reported, and no other source of idx. A refresh that
// fails is logged, and the index keeps the tools it had.
//
// AutoRefresh returns a function that stops it and waits for a refresh
// under way to end; [Manager.Close] stops it too.
func (m *Manager) AutoRefresh(idx toolindex.Index) (stop func()) {
	ctx, cancel := context.WithCancel(m.ctx)
	r := &refresher{m: m, idx: idx, ctx: ctx, cancel: cancel}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		cancel()
		return func() {}
	}
	m.refreshers[r] = struct{}{}
	m.mu.Unlock()
	return sync.OnceFunc(func() {
		m.mu.Lock()
		delete(m.refreshers, r)
		m.mu.Unlock()
		r.stop()
	})
}

// sourceFollower is implemented by indexes that tell which sources they
// follow, such as [toolindex.MemoryIndex].
type sourceFollower interface {
	HasSource(identity string) bool
}

// toolsChanged schedules a refresh of the indexes kept in step with a
// server that reported a change of its tools. An index that tells which
// sources it follows is refreshed only for its own; another is refreshed
// for every report, which lists nothing when it has no source of the
// server.
func (m *Manager) toolsChanged(s *server) {
	id := identity(s.name)
	m.mu.RLock()
	defer m.mu.RUnlock()
	for r := range m.refreshers {
		if f, ok := r.idx.(sourceFollower); ok && !f.HasSource(id) {
			continue
		}
		r.schedule(id)
	}
}

// refresher refreshes one index, at most once per refresh delay.
type refresher struct {
	m      *Manager
	idx    toolindex.Index
	ctx    context.Context // ends when the refresher stops
	cancel context.CancelFunc

	mu      sync.Mutex
	timer   *time.Timer         // the refresh to come, if any
	pending map[string]struct{} // the identities of the sources it lists
	stopped bool
	running sync.WaitGroup // the refresh under way
}

// schedule makes a refresh of the source of identity happen after the
// delay: the refresh already due, if any, or a new one.
func (r *refresher) schedule(identity string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	if r.pending == nil {
		r.pending = map[string]struct{}{}
	}
	r.pending[identity] = struct{}{}
	if r.timer != nil {
		return
	}
	r.running.Add(1)
	r.timer = time.AfterFunc(r.m.opts.refreshDelay, r.refresh)
}

func (r *refresher) refresh() {
	defer r.running.Done()
	// From now on, a new report needs a new refresh: this one may list
	// the server before the change.
	r.mu.Lock()
	r.timer = nil
	identities := slices.Sorted(maps.Keys(r.pending))
	r.pending = nil
	r.mu.Unlock()
	if err := r.idx.Refresh(r.ctx, identities...); err != nil && r.ctx.Err() == nil {
		r.m.opts.logger.Warn("refresh of the index after a change of MCP tools failed", "error", err)
	}
}

// stop cancels the refresh to come and the one under way, and waits for
// the latter.
func (r *refresher) stop() {
	r.mu.Lock()
	r.stopped = true
	if r.timer != nil && r.timer.Stop() {
		r.running.Done()
	}
	r.timer = nil
	r.mu.Unlock()
	r.cancel()
	r.running.Wait()
}

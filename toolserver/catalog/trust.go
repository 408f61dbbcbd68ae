package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/config"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// TrustPoll is how often a catalogue that withholds items of its
// upstreams looks for approvals another process made in its pin store
// (`metatools tools approve`): an upstream with an item approved since is
// listed again, and what is approved is served.
const TrustPoll = 5 * time.Second

// storeWait bounds the wait for the pin store held by another process (a
// `metatools tools approve`, another server of the same user): each holds
// it for one listing or one approval.
const storeWait = 5 * time.Second

// gate is the catalogue's trust in its upstreams: every listing of an
// upstream's tools, prompts and resource templates goes through it, and
// it keeps what the upstream's trust mode admits (package trust). What it
// withholds is missing on every face, since it never reaches the index
// nor the servers, and the operations say why to a caller asking for it.
type gate struct {
	// path is the pin store's, or pathErr why there is none (no home
	// directory): an upstream that is not trusted then fails to list.
	path    string
	pathErr error
	scanner *trust.Scanner
	names   *trust.Names // the names the model sees, built-ins included
	logger  *slog.Logger
	trust   map[string]config.UpstreamTrust // by upstream name

	// mu makes the process open the store once at a time: bbolt locks
	// the file per open, even within one process. It guards withheld,
	// the store IDs of what each upstream's last listings withheld, by
	// kind, and stamp, the store's modification time when it was last
	// looked at for approvals.
	mu       sync.Mutex
	withheld map[string]map[trust.Kind][]string
	stamp    time.Time
}

func newGate(cfg *config.Config, logger *slog.Logger) (*gate, error) {
	scanner, err := trust.NewScanner()
	if err != nil {
		return nil, err
	}
	path, pathErr := cfg.TrustStore()
	if pathErr != nil {
		pathErr = fmt.Errorf("%w; set trust.store, or XDG_STATE_HOME", pathErr)
	}
	g := &gate{path: path, pathErr: pathErr, scanner: scanner, names: trust.NewNames(), logger: logger, trust: map[string]config.UpstreamTrust{},
		withheld: map[string]map[trust.Kind][]string{}}
	for _, s := range cfg.MCPServers {
		g.trust[s.Name] = s.UpstreamTrust
	}
	for _, o := range cfg.OpenAPI {
		g.trust[o.Name] = o.UpstreamTrust
	}
	for _, s := range cfg.GRPC {
		g.trust[s.Name] = s.UpstreamTrust
	}
	return g, nil
}

// builtin records the names of the built-in tools, which upstreams' tools
// must not pass for.
func (g *gate) builtin(ids []string) {
	for _, id := range ids {
		g.names.Add(trust.BuiltinOwner, id)
	}
}

// observe records one listing of upstream's items of kind and returns,
// in the listing's order, whether each is admitted, and why not.
func (g *gate) observe(upstream string, kind trust.Kind, items []trust.Item) ([]trust.Verdict, error) {
	t := g.trust[upstream]
	mode, err := trust.ParseMode(string(t.Trust))
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.withheld[upstream] == nil {
		g.withheld[upstream] = map[trust.Kind][]string{}
	}
	g.withheld[upstream][kind] = nil
	if mode == trust.ModeTrusted {
		// Nothing is checked nor pinned; the names still count for the
		// other upstreams' checks.
		verdicts := make([]trust.Verdict, len(items))
		if kind == trust.KindTool {
			g.names.RemoveOwner(upstream)
		}
		for i := range items {
			verdicts[i] = trust.Verdict{ID: items[i].ID(), Item: items[i], Admit: true}
			if kind == trust.KindTool {
				g.names.AddItem(&items[i])
			}
		}
		return verdicts, nil
	}
	if g.pathErr != nil {
		return nil, fmt.Errorf("trust: %w", g.pathErr)
	}
	store, err := trust.Open(g.path, trust.WithScanner(g.scanner), trust.WithOpenTimeout(storeWait))
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	verdicts, err := store.Observe(trust.Listing{Upstream: upstream, Kind: kind, Mode: mode, Items: items, PreApproved: t.Approved, Names: g.names})
	if closeErr := store.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	for _, v := range verdicts {
		if !v.Admit {
			g.withheld[upstream][kind] = append(g.withheld[upstream][kind], v.ID)
			g.logger.Warn("upstream item quarantined until approved (metatools tools review)", "upstream", upstream,
				"kind", string(kind), "id", v.ID, "fingerprint", v.Fingerprint.Short(), "reason", v.Reason)
		}
	}
	return verdicts, nil
}

// approved returns the upstreams an item of which, withheld by their
// last listing, has been approved since, with the kinds of those items.
// It reads the store only when its file changed since the last look.
func (g *gate) approved() map[string][]trust.Kind {
	g.mu.Lock()
	defer g.mu.Unlock()
	waiting := false
	for _, byKind := range g.withheld {
		for _, ids := range byKind {
			waiting = waiting || len(ids) > 0
		}
	}
	if !waiting {
		return nil
	}
	info, err := os.Stat(g.path)
	if err != nil || info.ModTime().Equal(g.stamp) {
		return nil
	}
	g.stamp = info.ModTime()
	store, err := trust.Open(g.path, trust.WithScanner(g.scanner), trust.WithOpenTimeout(storeWait))
	if err != nil {
		g.logger.Warn("trust: cannot look for approvals", "error", err)
		return nil
	}
	defer store.Close()
	out := map[string][]trust.Kind{}
	for upstream, byKind := range g.withheld {
		for kind, ids := range byKind {
			for _, id := range ids {
				if r, err := store.Lookup(id); err == nil && r.Pending == nil {
					out[upstream] = append(out[upstream], kind)
					break
				}
			}
		}
	}
	return out
}

// watchApprovals lists again, every [TrustPoll] until the catalogue
// closes, the upstreams an item of which was approved: their tools with
// relist, by upstream name, and their prompts and resource templates
// through the servers built over the catalogue.
func (c *Catalog) watchApprovals(relist map[string]func(context.Context) (int, error)) {
	tick := time.NewTicker(TrustPoll)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick.C:
		}
		for upstream, kinds := range c.trust.approved() {
			if slices.Contains(kinds, trust.KindTool) && relist[upstream] != nil {
				if _, err := relist[upstream](c.ctx); err != nil {
					c.logger.Warn("trust: cannot list an upstream again after an approval", "upstream", upstream, "error", err)
				}
			}
			if slices.ContainsFunc(kinds, func(k trust.Kind) bool { return k != trust.KindTool }) {
				c.relay.changed(upstream)
			}
		}
	}
}

// tools returns the registrations of an upstream's tool listing that it
// admits, and the others as the operations report them.
func (g *gate) tools(upstream string, regs []toolindex.Registration) ([]toolindex.Registration, []toolops.Quarantined, error) {
	items := make([]trust.Item, len(regs))
	for i := range regs {
		it, err := trust.ToolItem(upstream, &regs[i].Tool.Tool)
		if err != nil {
			return nil, nil, fmt.Errorf("trust: %w", err)
		}
		it.Namespace = regs[i].Tool.Namespace
		items[i] = it
	}
	verdicts, err := g.observe(upstream, trust.KindTool, items)
	if err != nil {
		return nil, nil, err
	}
	admitted := make([]toolindex.Registration, 0, len(regs))
	var withheld []toolops.Quarantined
	for i, v := range verdicts {
		if v.Admit {
			admitted = append(admitted, regs[i])
			continue
		}
		withheld = append(withheld, toolops.Quarantined{ID: regs[i].Tool.ID(), Reason: v.Reason, Tool: regs[i].Tool, Backend: regs[i].Backend})
	}
	return admitted, withheld, nil
}

// upstreamTrust is what the servers built over the catalogue forward of
// their upstreams' prompts and resource templates: what the gate admits.
// A listing the store cannot record forwards nothing of that upstream.
func (g *gate) upstreamTrust() toolserver.UpstreamTrust {
	return toolserver.UpstreamTrust{
		Prompts: func(server string, prompts []*mcp.Prompt) []*mcp.Prompt {
			items := make([]trust.Item, len(prompts))
			for i, p := range prompts {
				items[i] = trust.PromptItem(server, p)
			}
			return admitted(g, server, trust.KindPrompt, items, prompts)
		},
		Templates: func(server string, templates []*mcp.ResourceTemplate) []*mcp.ResourceTemplate {
			items := make([]trust.Item, len(templates))
			for i, t := range templates {
				items[i] = trust.ResourceTemplateItem(server, t)
			}
			return admitted(g, server, trust.KindResourceTemplate, items, templates)
		},
	}
}

// admitted returns the values whose items (in the same order) the gate
// admits.
func admitted[T any](g *gate, server string, kind trust.Kind, items []trust.Item, values []T) []T {
	verdicts, err := g.observe(server, kind, items)
	if err != nil {
		g.logger.Warn("upstream: its "+string(kind)+"s are withheld", "upstream", server, "error", err)
		return nil
	}
	out := make([]T, 0, len(values))
	for i, v := range verdicts {
		if v.Admit {
			out = append(out, values[i])
		}
	}
	return out
}

// Review returns what waits for an operator's approval in the pin store
// at path, by ID, each with what the scanner found and the version
// approved before ([trust.Record.Diff] tells the change): what `metatools
// tools review` lists and the web console shows. It waits up to a few
// seconds for a store another process holds.
func Review(path string) ([]trust.Record, error) {
	store, err := trust.Open(path, trust.WithOpenTimeout(storeWait))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	return store.Pending()
}

// Approve approves what waits in the pin store at path: the items of
// ids, all or none ([trust.Store.Approve]), or, when upstream is set
// instead, every item of that upstream. It returns the records approved;
// a running catalogue admits them within [TrustPoll]. It is the one
// approval of `metatools tools approve` and of the web console.
func Approve(path string, ids []string, upstream string) ([]trust.Record, error) {
	if (len(ids) == 0) == (upstream == "") {
		return nil, errors.Errorf(errors.InvalidArgument, "approve the IDs of items waiting, or the items of one upstream")
	}
	store, err := trust.Open(path, trust.WithOpenTimeout(storeWait))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if upstream != "" {
		return store.ApproveUpstream(upstream)
	}
	return store.Approve(ids...)
}

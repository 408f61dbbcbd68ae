package toolops_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// catalogue is a small real catalogue: local tools echoing their ID, a
// policy that denies the namespace "secret" and the tool "list:3", and
// a count of the calls that ran.
type catalogue struct {
	index  *toolindex.MemoryIndex
	docs   *tooldocs.Store
	runner *toolrun.Runner
	ran    atomic.Int64
}

// The tools of the catalogue, in ID order.
var catalogueTools = []string{"alpha:one", "alpha:two", "list:1", "list:2", "list:3", "list:4", "list:5", "list:6", "secret:key", "secret:vault"}

// offeredList are the tools of the namespace list that the policy allows.
var offeredList = []string{"list:1", "list:2", "list:4", "list:5", "list:6"}

func newCatalogue(t testing.TB, policy toolrun.AuthorizationPolicy) *catalogue {
	t.Helper()
	c := &catalogue{index: toolindex.New()}
	local := toolrun.NewLocalExecutor()
	ctx := context.Background()
	for _, id := range catalogueTools {
		ns, name, _ := strings.Cut(id, ":")
		tool, err := toolmodel.DecodeTool(fmt.Appendf(nil,
			`{"name":%q,"namespace":%q,"description":"The tool %s.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`, name, ns, id))
		require.NoError(t, err)
		local.Register(id, func(context.Context, map[string]any) (any, error) {
			c.ran.Add(1)
			return map[string]any{"id": id}, nil
		})
		require.NoError(t, c.index.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(id)}))
	}
	c.docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(c.index)))
	for _, id := range catalogueTools {
		require.NoError(t, c.docs.Register(ctx, tooldocs.Entry{ToolID: id, Source: tooldocs.SourceManual,
			Examples: []tooldocs.Example{{Name: "small", Args: map[string]any{"n": 1}}}}))
	}
	if policy == nil {
		policy = toolrun.AllowDeny{Deny: []string{"secret:*", "list:3"}}
	}
	c.runner = toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}),
		toolrun.WithIndex(c.index), toolrun.WithAuthorization(policy))
	return c
}

func (c *catalogue) ops(t testing.TB, opts ...toolops.Option) *toolops.Service {
	t.Helper()
	ops, err := toolops.New(c.index, c.docs, c.runner, opts...)
	require.NoError(t, err)
	return ops
}

// answer runs one operation on the tool id and returns its error.
type answer func(ctx context.Context, ops *toolops.Service, id string) error

var perTool = map[string]answer{
	"describe": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Describe(ctx, toolops.DescribeRequest{ID: id})
		return err
	},
	"examples": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Examples(ctx, toolops.ExamplesRequest{ID: id})
		return err
	},
	"declare": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Declare(ctx, toolops.DeclareRequest{IDs: []string{"alpha:one", id}})
		return err
	},
	"definition": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Definition(ctx, id)
		return err
	},
	"run": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Run(ctx, toolops.RunRequest{ID: id, Args: map[string]any{"n": 1}})
		return err
	},
	"chain": func(ctx context.Context, ops *toolops.Service, id string) error {
		_, err := ops.Chain(ctx, toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "alpha:one"}, {ID: id}}})
		return err
	},
}

// TestHiddenToolsAnswerAsUnknownOnes checks that every operation on one
// tool answers for a tool the policy denies exactly as for a tool that
// does not exist: same code, same words, nothing that tells them apart.
func TestHiddenToolsAnswerAsUnknownOnes(t *testing.T) {
	c := newCatalogue(t, nil)
	ops := c.ops(t)
	ctx := context.Background()
	for name, op := range perTool {
		t.Run(name, func(t *testing.T) {
			for _, denied := range []string{"secret:key", "list:3"} {
				hidden := op(ctx, ops, denied)
				unknown := op(ctx, ops, "nowhere:nothing")
				require.Error(t, hidden)
				require.Error(t, unknown)
				assert.Equal(t, errors.NotFound, errors.CodeOf(hidden))
				assert.Equal(t, strings.ReplaceAll(unknown.Error(), "nowhere:nothing", denied), hidden.Error())
				assert.Equal(t, errors.IsRetryable(unknown), errors.IsRetryable(hidden))
				assert.NotContains(t, hidden.Error(), "denied")
			}
			require.NoError(t, op(ctx, ops, "list:2"), "an offered tool is answered")
		})
	}
	assert.Equal(t, int64(3), c.ran.Load(), "the run of list:2 and both steps of its chain ran; no chain with a hidden step ran its first step")
}

// TestSearchFillsPagesPastHiddenTools pages through the catalogue two
// tools at a time: every offered tool comes once, in order, and no
// hidden one.
func TestSearchFillsPagesPastHiddenTools(t *testing.T) {
	ops := newCatalogue(t, nil).ops(t)
	ctx := context.Background()
	for _, req := range []toolops.SearchRequest{{Namespace: "list", Limit: 2}, {Query: "tool", Namespace: "list", Limit: 2}} {
		var seen []string
		pages := 0
		for {
			page, err := ops.Search(ctx, req)
			require.NoError(t, err)
			pages++
			for _, tool := range page.Tools {
				seen = append(seen, tool.ID)
			}
			if page.NextCursor == "" {
				break
			}
			assert.Len(t, page.Tools, 2, "a page with more to come is full")
			req.Cursor = page.NextCursor
		}
		if req.Query == "" {
			assert.Equal(t, offeredList, seen, "a listing is in ID order")
		} else {
			assert.ElementsMatch(t, offeredList, seen, "a search finds every offered tool once")
		}
		assert.Equal(t, 3, pages)
	}
}

func TestSearchRequests(t *testing.T) {
	ops := newCatalogue(t, nil).ops(t, toolops.WithLimits(toolops.Limits{SearchResults: 3}))
	ctx := context.Background()
	page, err := ops.Search(ctx, toolops.SearchRequest{})
	require.NoError(t, err)
	assert.Len(t, page.Tools, 3, "no limit asks for the service's default")

	tests := []struct {
		name string
		req  toolops.SearchRequest
		code errors.Code
		text string
	}{
		{"negative limit", toolops.SearchRequest{Limit: -1}, errors.InvalidArgument, "search: limit -1 is out of range: ask for 1 to 50 tools and go on with the answer's nextCursor"},
		{"limit past the most", toolops.SearchRequest{Limit: 51}, errors.InvalidArgument, "search: limit 51 is out of range"},
		{"malformed cursor", toolops.SearchRequest{Cursor: "abc.x"}, errors.InvalidArgument, `search: cursor "abc.x" is malformed`},
		{"unknown namespace", toolops.SearchRequest{Namespace: "nowhere"}, errors.NotFound, `search: no namespace "nowhere"; list the namespaces to see those there are`},
		{"hidden namespace", toolops.SearchRequest{Namespace: "secret"}, errors.NotFound, `search: no namespace "secret"; list the namespaces to see those there are`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ops.Search(ctx, tt.req)
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err))
			assert.Contains(t, err.Error(), tt.text)
		})
	}
}

func TestNamespacesHideThoseWithNoOfferedTool(t *testing.T) {
	ops := newCatalogue(t, nil).ops(t)
	names, err := ops.Namespaces(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "list"}, names)
}

// TestCallerReachesThePolicies checks that the caller's metadata decides
// what it is offered on every operation, searches included.
func TestCallerReachesThePolicies(t *testing.T) {
	onlyAlice := toolrun.AuthorizationFunc(func(_ context.Context, call *toolrun.Call) error {
		if call.Tool.Namespace == "alpha" && call.Metadata["user"] != "alice" {
			return errors.Errorf(errors.PermissionDenied, "alpha is for alice")
		}
		return nil
	})
	ops := newCatalogue(t, onlyAlice).ops(t)
	alice := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"user": "alice"}})
	bob := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"user": "bob"}})

	names, err := ops.Namespaces(alice)
	require.NoError(t, err)
	assert.Contains(t, names, "alpha")
	names, err = ops.Namespaces(bob)
	require.NoError(t, err)
	assert.NotContains(t, names, "alpha")

	_, err = ops.Run(alice, toolops.RunRequest{ID: "alpha:one"})
	require.NoError(t, err)
	_, err = ops.Run(bob, toolops.RunRequest{ID: "alpha:one"})
	assert.Equal(t, errors.NotFound, errors.CodeOf(err))
}

func TestChainChecksEveryStepBeforeTheFirstRuns(t *testing.T) {
	c := newCatalogue(t, nil)
	ops := c.ops(t, toolops.WithLimits(toolops.Limits{ChainSteps: 3}))
	ctx := context.Background()

	_, err := ops.Chain(ctx, toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "alpha:one"}, {ID: "alpha:two"}, {ID: "secret:key"}}})
	require.Error(t, err)
	assert.Equal(t, `chain: tool "secret:key": step 2: no tool with this ID; search finds tools by what they do`, err.Error())
	assert.Zero(t, c.ran.Load(), "no step ran")

	_, err = ops.Chain(ctx, toolops.ChainRequest{})
	require.EqualError(t, err, "chain: the chain has no steps: give at least one")
	_, err = ops.Chain(ctx, toolops.ChainRequest{Steps: make([]toolops.ChainStep, 4)})
	require.EqualError(t, err, "chain: the chain has 4 steps, the limit is 3 (limits.chainSteps): split it")

	results, err := ops.Chain(ctx, toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "alpha:one"}, {ID: "alpha:two", UsePrevious: true, PreviousKey: "n"}}})
	require.Error(t, err, "alpha:two refuses an object for n")
	require.Len(t, results, 2)
	assert.Equal(t, map[string]any{"id": "alpha:one"}, results[0].Result.Structured)
	assert.Equal(t, errors.Validation, errors.CodeOf(results[1].Err))
}

func TestDescribeLevels(t *testing.T) {
	ops := newCatalogue(t, nil).ops(t)
	ctx := context.Background()
	for level, want := range map[string]tooldocs.DetailLevel{"": tooldocs.LevelSchema, "FULL": tooldocs.LevelFull, "summary": tooldocs.LevelSummary} {
		doc, err := ops.Describe(ctx, toolops.DescribeRequest{ID: "alpha:one", Level: level})
		require.NoError(t, err)
		assert.Equal(t, want, doc.Level, level)
	}
	_, err := ops.Describe(ctx, toolops.DescribeRequest{ID: "alpha:one", Level: "everything"})
	require.EqualError(t, err, `describe: unknown detail level "everything": want summary, schema or full`)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))

	_, err = ops.Examples(ctx, toolops.ExamplesRequest{ID: "alpha:one", Limit: -1})
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	examples, err := ops.Examples(ctx, toolops.ExamplesRequest{ID: "alpha:one"})
	require.NoError(t, err)
	assert.Len(t, examples, 1)
}

// TestUnknownToolWhileUpstreamsConnect shows the hint of an unknown tool
// while an upstream makes its first connection attempt, and none once it
// is up, or while it tries again after a failure (the answer does not
// change with each attempt).
func TestUnknownToolWhileUpstreamsConnect(t *testing.T) {
	var attempts atomic.Int32
	attempts.Store(1)
	var connecting atomic.Bool
	connecting.Store(true)
	ops := newCatalogue(t, nil).ops(t, toolops.WithUpstreams(func() []toolops.Upstream {
		slow := toolops.Upstream{Name: "slow", Kind: "mcp", State: toolops.UpstreamUp, Attempts: int(attempts.Load())}
		if connecting.Load() {
			slow.State = toolops.UpstreamConnecting
		}
		return []toolops.Upstream{{Name: "builtin", Kind: "builtin", State: toolops.UpstreamUp}, slow}
	}))
	ctx := context.Background()
	for name, op := range perTool {
		err := op(ctx, ops, "slow:sundial")
		assert.Equal(t, errors.NotFound, errors.CodeOf(err), name)
		assert.True(t, errors.IsRetryable(err), "%s: a tool of a connecting upstream may come", name)
		assert.Contains(t, err.Error(), "upstreams still connecting, whose tools are not listed yet: slow;", name)
	}
	for _, retrying := range []bool{false, true} {
		connecting.Store(retrying)
		attempts.Store(2)
		for name, op := range perTool {
			err := op(ctx, ops, "slow:sundial")
			assert.False(t, errors.IsRetryable(err), name)
			assert.NotContains(t, err.Error(), "connecting", name)
		}
	}
}

// TestUnknownToolOfAnUpstreamDown shows that the answer for an unknown
// tool of a namespace whose upstream is down says so, with its failure,
// to a caller offered that namespace only.
func TestUnknownToolOfAnUpstreamDown(t *testing.T) {
	ops := newCatalogue(t, toolrun.AllowDeny{Deny: []string{"vault:*"}}).ops(t, toolops.WithUpstreams(func() []toolops.Upstream {
		return []toolops.Upstream{
			{Name: "jira", State: toolops.UpstreamFailed, Error: "connection refused", Namespaces: []string{"tickets"}},
			{Name: "vault", State: toolops.UpstreamFailed, Error: "connection refused", Namespaces: []string{"vault"}},
		}
	}))
	for name, op := range perTool {
		err := op(context.Background(), ops, "tickets:create")
		assert.Equal(t, errors.NotFound, errors.CodeOf(err), name)
		assert.Contains(t, err.Error(), "(the upstream of namespace tickets, jira, is down: connection refused)", name)
		err = op(context.Background(), ops, "vault:read")
		assert.NotContains(t, err.Error(), "down", "%s: a namespace the policies hide is not explained", name)
	}
}

func TestNewAndLimits(t *testing.T) {
	c := newCatalogue(t, nil)
	_, err := toolops.New(nil, nil, c.runner)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	for _, l := range []toolops.Limits{{SearchResults: -1}, {SearchResults: 51}, {ChainSteps: -1}, {AnswerBytes: -1}} {
		_, err := toolops.New(c.index, nil, c.runner, toolops.WithLimits(l))
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "%+v", l)
	}
	ops, err := toolops.New(c.index, nil, c.runner, toolops.WithLimits(toolops.Limits{AnswerBytes: 100}))
	require.NoError(t, err)
	assert.Equal(t, toolops.Limits{SearchResults: 5, ChainSteps: 32, AnswerBytes: 100}, ops.Limits())
	require.NoError(t, ops.CheckAnswer("run", 100))
	err = ops.CheckAnswer("run", 101)
	assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
	assert.EqualError(t, err, "run: the answer is 101 bytes or more, the limit is 100 bytes (limits.answerBytes): ask for less, such as fewer steps or a narrower query")
}

// FuzzParseLevel reads any level name: never a panic, a level for the
// names of the three levels in any case, an invalid_argument error else.
func FuzzParseLevel(f *testing.F) {
	for _, seed := range []string{"", "summary", "SCHEMA", " full ", "everything", "\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		level, err := toolops.ParseLevel(name)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			return
		}
		assert.True(t, level.Valid())
	})
}

// TestUpstreamsOfHiddenNamespacesAreHidden checks that the state of an
// upstream, its failure and the stderr quoted in it, reach only a caller
// offered one of its namespaces, and that the hint of an unknown tool
// names no hidden upstream.
func TestUpstreamsOfHiddenNamespacesAreHidden(t *testing.T) {
	policy := toolrun.AllowDeny{Deny: []string{"secret:*", "list:3", "vault:*"}}
	ops := newCatalogue(t, policy).ops(t, toolops.WithUpstreams(func() []toolops.Upstream {
		return []toolops.Upstream{
			{Name: "alpha", State: toolops.UpstreamUp, Namespaces: []string{"alpha", "list"}},
			{Name: "secret", State: toolops.UpstreamUp, Namespaces: []string{"secret"}},
			{Name: "vault", State: toolops.UpstreamFailed, Error: "stderr: password=hunter2", Namespaces: []string{"vault"}},
			{Name: "gone", State: toolops.UpstreamFailed, Error: "cannot start", Namespaces: []string{"gone"}},
			{Name: "vault-mirror", State: toolops.UpstreamConnecting, Namespaces: []string{"vault"}},
			{Name: "unmapped", State: toolops.UpstreamUp},
		}
	}))
	ctx := context.Background()
	var names []string
	for _, u := range ops.Upstreams(ctx) {
		names = append(names, u.Name)
	}
	assert.Equal(t, []string{"alpha", "gone", "unmapped"}, names,
		"an upstream whose tools are all denied, or whose namespace the policy refuses while it is down or connecting, is hidden")

	_, err := ops.Describe(ctx, toolops.DescribeRequest{ID: "nowhere:nothing"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "vault", "a connecting upstream the caller is not offered is not named")
	assert.False(t, errors.IsRetryable(err))
}

// TestQuarantinedTools shows a tool the catalogue withholds: absent from
// searches, which say it is withheld (and which upstreams they could not
// search), and answered as such by every
// operation on its ID, to a caller the policies would let call it; a
// caller they would not sees an unknown tool and no mention of it.
func TestQuarantinedTools(t *testing.T) {
	quarantine := func(id string) toolops.Quarantined {
		ns, name, _ := strings.Cut(id, ":")
		return toolops.Quarantined{ID: id, Reason: "changed since approved: description",
			Tool: toolmodel.Tool{Namespace: ns, Tool: mcp.Tool{Name: name}}, Backend: toolrun.LocalBackendFor(id)}
	}
	ops := newCatalogue(t, nil).ops(t, toolops.WithUpstreams(func() []toolops.Upstream {
		return []toolops.Upstream{{Name: "alpha", State: toolops.UpstreamUp, Namespaces: []string{"alpha"},
			Quarantined: []toolops.Quarantined{quarantine("alpha:rugpull"), quarantine("secret:poisoned")}},
			{Name: "slow", State: toolops.UpstreamConnecting, Attempts: 2, Namespaces: []string{"slow"}}}
	}))
	ctx := context.Background()
	for name, op := range perTool {
		err := op(ctx, ops, "alpha:rugpull")
		assert.Equal(t, errors.NotFound, errors.CodeOf(err), name)
		assert.Contains(t, err.Error(), "this tool is quarantined until an operator approves it: changed since approved: description", name)
		err = op(ctx, ops, "secret:poisoned")
		assert.Equal(t, errors.NotFound, errors.CodeOf(err), name)
		assert.NotContains(t, err.Error(), "quarantined", "%s: a tool the policies deny stays unknown", name)
	}

	res, err := ops.Search(ctx, toolops.SearchRequest{Query: "rugpull"})
	require.NoError(t, err)
	for _, tool := range res.Tools {
		assert.NotEqual(t, "alpha:rugpull", tool.ID)
	}
	assert.Equal(t, "Not searched: the tools of slow (connecting). Quarantined until an operator approves them: alpha:rugpull (changed since approved: description).", res.Note)
	res, err = ops.Search(ctx, toolops.SearchRequest{Query: "one", Namespace: "alpha"})
	require.NoError(t, err)
	assert.Equal(t, "Quarantined until an operator approves them: alpha:rugpull (changed since approved: description).", res.Note,
		"a search of a namespace notes only its upstreams")
	ups := ops.Upstreams(ctx)
	require.Len(t, ups, 2)
	assert.Equal(t, []string{"alpha:rugpull"}, []string{ups[0].Quarantined[0].ID}, "the denied tool is not listed")
	assert.Len(t, ups[0].Quarantined, 1)
	assert.Contains(t, toolops.StatusText(ups, time.Now()), "- alpha (): up, 0 tools; quarantined until an operator approves them: alpha:rugpull (changed since approved: description)")
}

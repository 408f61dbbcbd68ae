package toolserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// livemcpTools is the catalogue of 527 tools of 70 real MCP servers
// (LiveMCPBench) that toolsearch evaluates its ranking on.
const livemcpTools = "../toolsearch/testdata/livemcp/tools.jsonl"

// loadLiveMCP reads the livemcp catalogue.
func loadLiveMCP(t *testing.T) []toolmodel.Tool {
	t.Helper()
	f, err := os.Open(livemcpTools)
	require.NoError(t, err, "the livemcp catalogue lives in the toolsearch module of this repository")
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var tools []toolmodel.Tool
	for sc.Scan() {
		tool, err := toolmodel.DecodeTool(sc.Bytes())
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	require.NoError(t, sc.Err())
	require.Len(t, tools, 527)
	return tools
}

// livemcpResult is what every livemcp tool answers in the measurement: a
// page of records derived from the tool's ID and arguments, each record
// about 170 bytes of JSON. Both paths of the measurement get the same
// answers.
func livemcpResult(id string, args map[string]any, records int) map[string]any {
	argsJSON, _ := json.Marshal(args)
	items := make([]any, records)
	for i := range items {
		items[i] = map[string]any{
			"title":   fmt.Sprintf("%s result %d", id, i+1),
			"value":   float64(len(id)*(i+1)) / 4,
			"url":     fmt.Sprintf("https://api.example.org/%s/%d", strings.ReplaceAll(id, ":", "/"), i+1),
			"updated": fmt.Sprintf("2025-06-%02dT09:00:00Z", i+1),
		}
	}
	return map[string]any{"tool": id, "query": string(argsJSON), "count": len(items), "items": items}
}

// livemcpCall is one call of the measured task: a tool, the words an
// agent would search it with, and its arguments.
type livemcpCall struct {
	id, query string
	args      map[string]any
}

// morningBrief is the measured task: ten calls to ten tools, each found
// by a search of its own.
var morningBrief = []livemcpCall{
	{"time:get_current_time", "current time in a timezone", map[string]any{"timezone": "Europe/Paris"}},
	{"weather:get_weather_by_city", "weather forecast for a city", map[string]any{"city": "Paris"}},
	{"exchange-rate-mcp:exchange_rate", "currency exchange rate", map[string]any{"baseCurrency": "EUR", "targetCurrency": "USD"}},
	{"mcp-crypto-price:get-crypto-price", "cryptocurrency price", map[string]any{"symbol": "BTC"}},
	{"yahoo-finance:get_current_stock_price", "current stock price", map[string]any{"symbol": "AAPL"}},
	{"yahoo-finance:get_news", "news about a stock", map[string]any{"symbol": "AAPL"}},
	{"yahoo-finance:get_recommendations", "analyst recommendations for a stock", map[string]any{"symbol": "AAPL"}},
	{"hackernews:getStories", "top hacker news stories", map[string]any{"type": "top", "limit": 5}},
	{"wikipedia:get_summary", "wikipedia article summary", map[string]any{"title": "Paris"}},
	{"arxiv-mcp-server:search_papers", "search arxiv papers", map[string]any{"query": "tool retrieval for language models"}},
}

// morningBriefProgram is the task as one program: the ten calls at once,
// and of each answer what the brief needs.
const morningBriefProgram = `const [time, weather, rate, btc, price, news, recs, stories, wiki, papers] = await Promise.all([
  tools.time.get_current_time({ timezone: "Europe/Paris" }),
  tools.weather.get_weather_by_city({ city: "Paris" }),
  tools["exchange-rate-mcp"].exchange_rate({ baseCurrency: "EUR", targetCurrency: "USD" }),
  tools["mcp-crypto-price"]["get-crypto-price"]({ symbol: "BTC" }),
  tools["yahoo-finance"].get_current_stock_price({ symbol: "AAPL" }),
  tools["yahoo-finance"].get_news({ symbol: "AAPL" }),
  tools["yahoo-finance"].get_recommendations({ symbol: "AAPL" }),
  tools.hackernews.getStories({ type: "top", limit: 5 }),
  tools.wikipedia.get_summary({ title: "Paris" }),
  tools["arxiv-mcp-server"].search_papers({ query: "tool retrieval for language models" }),
]) as any[];
const first = (r: any) => r.items[0].title;
return {
  time: first(time), weather: first(weather), rate: rate.items[0].value, btc: btc.items[0].value,
  aapl: price.items[0].value, news: news.items.slice(0, 3).map((i: any) => i.title),
  recs: first(recs), stories: stories.items.slice(0, 3).map((i: any) => i.title),
  wiki: first(wiki), papers: papers.items.slice(0, 3).map((i: any) => i.url),
};`

// morningBriefUnfiltered is the same program returning every answer
// whole: what code mode saves on round trips and documentation alone.
const morningBriefUnfiltered = `return await Promise.all([
  tools.time.get_current_time({ timezone: "Europe/Paris" }),
  tools.weather.get_weather_by_city({ city: "Paris" }),
  tools["exchange-rate-mcp"].exchange_rate({ baseCurrency: "EUR", targetCurrency: "USD" }),
  tools["mcp-crypto-price"]["get-crypto-price"]({ symbol: "BTC" }),
  tools["yahoo-finance"].get_current_stock_price({ symbol: "AAPL" }),
  tools["yahoo-finance"].get_news({ symbol: "AAPL" }),
  tools["yahoo-finance"].get_recommendations({ symbol: "AAPL" }),
  tools.hackernews.getStories({ type: "top", limit: 5 }),
  tools.wikipedia.get_summary({ title: "Paris" }),
  tools["arxiv-mcp-server"].search_papers({ query: "tool retrieval for language models" }),
]);`

// readCost is what an answer makes an agent read: its text contents,
// which most clients give the model, and with them its structured
// content as JSON, for clients that give both.
type readCost struct{ text, all int }

func (c readCost) plus(d readCost) readCost { return readCost{c.text + d.text, c.all + d.all} }

func costOfResult(t *testing.T, res *mcp.CallToolResult) readCost {
	t.Helper()
	require.False(t, res.IsError, text(res))
	n := len(text(res))
	c := readCost{text: n, all: n}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		c.all += len(raw)
	}
	return c
}

// livemcpServer serves the livemcp catalogue, every tool answering
// livemcpResult with the given number of records, with the given options.
func livemcpServer(t *testing.T, tools []toolmodel.Tool, records int, opts ...toolserver.Option) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	idx := toolindex.New()
	regs := make([]toolindex.Registration, len(tools))
	for i, tool := range tools {
		regs[i] = toolindex.Registration{Tool: tool, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider,
			Provider: &toolmodel.ProviderBackend{Provider: "livemcp"}}}
	}
	require.NoError(t, idx.RegisterMany(ctx, regs))
	provider := toolrun.NewProviderExecutor()
	provider.Register("livemcp", toolrun.ProviderFunc(func(_ context.Context, _ string, call *toolrun.Call) (toolrun.Output, error) {
		return toolrun.Output{Structured: livemcpResult(call.Tool.ID(), call.Args, records)}, nil
	}))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendProvider: provider}),
		toolrun.WithIndex(idx))
	docs := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	opts = append([]toolserver.Option{toolserver.WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	ops, err := toolops.New(idx, docs, runner)
	require.NoError(t, err)
	srv, err := toolserver.New(ops, opts...)
	require.NoError(t, err)
	return connect(t, srv, nil)
}

// listBytes is the size of a session's tools/list answer.
func listBytes(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	raw, err := json.Marshal(list)
	require.NoError(t, err)
	return len(raw)
}

// searchTask runs the task's searches (each query once, in order, with
// the given limit, 0 for the default) and returns what they cost; it
// checks that each finds
// the tools the task calls.
func searchTask(t *testing.T, cs *mcp.ClientSession, limit int) (readCost, int) {
	t.Helper()
	var cost readCost
	searches := 0
	done := map[string]bool{}
	for _, c := range morningBrief {
		if done[c.query] {
			continue
		}
		done[c.query] = true
		searches++
		args := map[string]any{"query": c.query}
		if limit > 0 {
			args["limit"] = limit
		}
		res := call(t, cs, toolserver.ToolSearch, args)
		cost = cost.plus(costOfResult(t, res))
		var found searchAnswer
		structured(t, res, &found)
		ids := make([]string, len(found.Tools))
		for i, tool := range found.Tools {
			ids[i] = tool.ID
		}
		for _, other := range morningBrief {
			if other.query == c.query {
				require.Contains(t, ids, other.id, "the search for %q finds %s", c.query, other.id)
			}
		}
	}
	return cost, searches
}

// taskCost is what the measured task makes an agent read on each path.
type taskCost struct {
	searches                         int
	metaSearch, describe, run, meta  readCost
	listed, executeDef               int
	codeSearch, program, whole, code readCost
	codeWhole                        readCost
}

// measureTask runs the task on both paths over the livemcp catalogue,
// every tool answering the given number of records, searching with the
// given limit (0: the default).
func measureTask(t *testing.T, tools []toolmodel.Tool, records, limit int) taskCost {
	t.Helper()
	var c taskCost
	meta := livemcpServer(t, tools, records)
	code := livemcpServer(t, tools, records, toolserver.WithCodeMode(toolserver.CodeMode{}))

	// Meta-tools: search, then describe and run each tool.
	c.metaSearch, c.searches = searchTask(t, meta, limit)
	for _, step := range morningBrief {
		c.describe = c.describe.plus(costOfResult(t, call(t, meta, toolserver.ToolDescribe, map[string]any{"id": step.id})))
		c.run = c.run.plus(costOfResult(t, call(t, meta, toolserver.ToolRun, map[string]any{"id": step.id, "args": step.args})))
	}
	c.meta = c.metaSearch.plus(c.describe).plus(c.run)

	// Code mode: search (with declarations), then one program. The
	// agent pays for what code mode adds to tools/list.
	c.listed = listBytes(t, code) - listBytes(t, meta)
	def, err := json.Marshal(listedTool(t, code, toolserver.ToolExecuteCode))
	require.NoError(t, err)
	c.executeDef = len(def)
	c.codeSearch, _ = searchTask(t, code, limit)
	res := call(t, code, toolserver.ToolExecuteCode, map[string]any{"language": "typescript", "code": morningBriefProgram})
	c.program = costOfResult(t, res)
	var out executeResult
	structured(t, res, &out)
	require.Len(t, out.Trace, len(morningBrief))
	for i, tr := range out.Trace {
		assert.True(t, tr.OK, "call %d: %s", i, tr.Tool)
	}
	assert.Contains(t, string(out.Value), `"time":"time:get_current_time result 1"`)
	c.whole = costOfResult(t, call(t, code, toolserver.ToolExecuteCode, map[string]any{"language": "typescript", "code": morningBriefUnfiltered}))
	fixed := c.codeSearch.plus(readCost{c.listed, c.listed})
	c.code = fixed.plus(c.program)
	c.codeWhole = fixed.plus(c.whole)
	return c
}

func percent(a, b int) float64 { return 100 * float64(a) / float64(b) }

// TestCodeModeContextCostLiveMCP measures what a task of ten tool calls
// over the livemcp catalogue makes an agent read, in code mode and
// through the other meta-tools.
//
// Both paths make the same ten searches. Code mode then reads the
// declarations in the search answers and one execute_code answer, and
// pays for what it adds to tools/list; the meta-tool path reads ten
// describe_tool answers (schema level) and ten run_tool answers. Every
// tool answers the same records in both paths. Code mode reads more
// documentation (it declares every hit of a search, where the other path
// describes the one tool it runs) and far fewer results: which wins
// depends on the size of the tools' answers, so the test measures two
// sizes and reports the size from which code mode reads less.
func TestCodeModeContextCostLiveMCP(t *testing.T) {
	tools := loadLiveMCP(t)
	t.Logf("livemcp, %d tools; a task of %d calls to %d tools, each found by its own search", len(tools), len(morningBrief), len(morningBrief))
	t.Logf("bytes read, text (text + structured content):")
	costs := map[string]taskCost{}
	for _, m := range []struct {
		name           string
		records, limit int
	}{{"small", 5, 0}, {"large", 20, 0}, {"small, limit 3", 5, 3}} {
		c := measureTask(t, tools, m.records, m.limit)
		costs[m.name] = c
		require.Equal(t, len(morningBrief), c.searches)
		limit := "the default limit"
		if m.limit > 0 {
			limit = fmt.Sprintf("limit %d", m.limit)
		}
		t.Logf("answers of %d records, %d bytes each on average (run_tool text), searches at %s:", m.records, c.run.text/len(morningBrief), limit)
		t.Logf("  meta-tools: searches %d (%d) + 10 describe_tool %d (%d) + 10 run_tool %d (%d) = %d (%d)",
			c.metaSearch.text, c.metaSearch.all, c.describe.text, c.describe.all, c.run.text, c.run.all, c.meta.text, c.meta.all)
		t.Logf("  code mode:  tools/list +%d (execute_code %d) + searches with declarations %d (%d) + execute_code %d (%d) = %d (%d)",
			c.listed, c.executeDef, c.codeSearch.text, c.codeSearch.all, c.program.text, c.program.all, c.code.text, c.code.all)
		t.Logf("  code mode / meta-tools: %.0f%% (%.0f%%); with a program returning every answer whole: %d (%d), %.0f%% (%.0f%%)",
			percent(c.code.text, c.meta.text), percent(c.code.all, c.meta.all),
			c.codeWhole.text, c.codeWhole.all, percent(c.codeWhole.text, c.meta.text), percent(c.codeWhole.all, c.meta.all))
		// What the program returns does not grow with the answers.
		assert.Less(t, c.program.text, c.run.text/10, "the program's answer is a small part of the tools' answers")
	}

	// Code mode reads a fixed amount more documentation, and a nearly
	// fixed program answer: it reads less once the ten answers outweigh
	// that difference.
	small, large := costs["small"], costs["large"]
	extra := (small.code.text - small.program.text) - (small.metaSearch.text + small.describe.text)
	t.Logf("code mode reads less once the tools answer more than about %d bytes each (its extra documentation: %d bytes)",
		extra/len(morningBrief), extra)
	assert.Less(t, large.code.text, large.meta.text, "with answers of 20 records, code mode makes the agent read less text")
	assert.Less(t, large.code.all, large.meta.all, "with answers of 20 records, code mode makes the agent read less, structured content included")
	assert.Greater(t, large.meta.text-large.code.text, small.meta.text-small.code.text, "the larger the answers, the more code mode saves")
	fewer := costs["small, limit 3"]
	assert.Less(t, fewer.code.text-fewer.meta.text, small.code.text-small.meta.text, "fewer hits, less extra documentation in code mode")
}

// Package cost measures what a catalogue costs an agent's context: its
// tools listed the classic way, against the meta-tools' path (their
// listing, one search, one description), through real MCP sessions with
// the toolserver package's servers; `metatools stats` reports it.
package cost

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// ContextCost compares what a catalogue costs an agent's context when its
// tools are listed the classic way, with what the meta-tools cost: their
// own listing, one search and one description.
type ContextCost struct {
	Tools int `json:"tools"`
	// Classic is a tools/list of every tool of the catalogue.
	Classic Cost `json:"classic"`
	// MetaList is the tools/list of the meta-tools.
	MetaList Cost `json:"metaList"`
	// Search is one search_tools answer.
	Search Cost `json:"search"`
	// Describe is one describe_tool answer at schema level, for the best
	// search result.
	Describe Cost `json:"describe"`
	// Meta is the sum of MetaList, Search and Describe.
	Meta Cost `json:"meta"`
	// Ratio is Meta.Bytes / Classic.Bytes.
	Ratio float64 `json:"ratio"`
}

// Cost is the size of what a client receives: its JSON bytes and an
// estimate of the tokens they take in a model's context.
type Cost struct {
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

func costOf(v any) (Cost, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return Cost{}, err
	}
	return Cost{Bytes: len(raw), Tokens: tooldocs.EstimateTokens(string(raw))}, nil
}

func (c Cost) plus(d Cost) Cost { return Cost{Bytes: c.Bytes + d.Bytes, Tokens: c.Tokens + d.Tokens} }

// Measure measures the [ContextCost] of a catalogue of tools
// through real MCP sessions: a server exposing every tool directly for the
// classic listing, and a server of meta-tools answering a search for query
// (limit results, 1 to toolindex.MaxPageSize) and describing the best
// result. The tools are not run. An empty catalogue, or a limit out of
// range, is an [errors.InvalidArgument] error.
func Measure(ctx context.Context, tools []toolmodel.Tool, query string, limit int) (ContextCost, error) {
	if len(tools) == 0 {
		return ContextCost{}, errors.Errorf(errors.InvalidArgument, "no tools to measure")
	}
	if limit < 1 || limit > toolops.MaxSearchResults {
		return ContextCost{}, errors.Errorf(errors.InvalidArgument, "the search limit must be 1 to %d, not %d", toolops.MaxSearchResults, limit)
	}
	idx := toolindex.New()
	regs := make([]toolindex.Registration, len(tools))
	for i, t := range tools {
		regs[i] = toolindex.Registration{Tool: t, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider,
			Provider: &toolmodel.ProviderBackend{Provider: "measure"}}}
	}
	if err := idx.RegisterMany(ctx, regs); err != nil {
		return ContextCost{}, err
	}
	docs := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	runner := toolrun.New(toolrun.NewExecutorRegistry(nil), toolrun.WithIndex(idx))
	ops, err := toolops.New(idx, docs, runner)
	if err != nil {
		return ContextCost{}, err
	}
	out := ContextCost{Tools: len(tools)}

	quiet := toolserver.WithLogger(slog.New(slog.DiscardHandler))
	meta, err := toolserver.New(ops, quiet)
	if err != nil {
		return out, err
	}
	defer meta.Close()
	session, closeSession, err := inMemorySession(ctx, meta)
	if err != nil {
		return out, err
	}
	defer closeSession()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		return out, err
	}
	if out.MetaList, err = costOf(list); err != nil {
		return out, err
	}

	classic, err := toolserver.New(ops, toolserver.WithPassthrough("*"), quiet)
	if err != nil {
		return out, err
	}
	defer classic.Close()
	listed, err := listAll(ctx, classic)
	if err != nil {
		return out, err
	}
	// The classic listing is the catalogue's tools alone, without the
	// meta-tools the server also has.
	catalogueTools := slices.DeleteFunc(listed, func(t *mcp.Tool) bool {
		return slices.ContainsFunc(list.Tools, func(m *mcp.Tool) bool { return m.Name == t.Name })
	})
	if out.Classic, err = costOf(&mcp.ListToolsResult{Tools: catalogueTools}); err != nil {
		return out, err
	}
	search, err := session.CallTool(ctx, &mcp.CallToolParams{Name: toolserver.ToolSearch, Arguments: map[string]any{"query": query, "limit": limit}})
	if err != nil {
		return out, err
	}
	if search.IsError {
		return out, resultError(search)
	}
	if out.Search, err = costOf(search); err != nil {
		return out, err
	}
	var found struct {
		Tools []struct {
			ID string `json:"id"`
		} `json:"tools"`
	}
	raw, _ := json.Marshal(search.StructuredContent)
	if err := json.Unmarshal(raw, &found); err != nil || len(found.Tools) == 0 {
		return out, fmt.Errorf("search for %q found no tool", query)
	}
	describe, err := session.CallTool(ctx, &mcp.CallToolParams{Name: toolserver.ToolDescribe, Arguments: map[string]any{"id": found.Tools[0].ID, "level": "schema"}})
	if err != nil {
		return out, err
	}
	if out.Describe, err = costOf(describe); err != nil {
		return out, err
	}
	out.Meta = out.MetaList.plus(out.Search).plus(out.Describe)
	if out.Classic.Bytes > 0 {
		out.Ratio = float64(out.Meta.Bytes) / float64(out.Classic.Bytes)
	}
	return out, nil
}

// resultError is the error a meta-tool's error result carries in its
// _meta (under toolserver.MetaErrorKey).
func resultError(res *mcp.CallToolResult) error {
	var w errors.WireError
	raw, err := json.Marshal(res.Meta[toolserver.MetaErrorKey])
	if err != nil || json.Unmarshal(raw, &w) != nil || w.Message == "" {
		return errors.Errorf(errors.Internal, "a meta-tool failed without saying why")
	}
	return errors.FromWire(&w)
}

// listAll lists every tool of a server through a real client session,
// following pagination.
func listAll(ctx context.Context, s *toolserver.Server) ([]*mcp.Tool, error) {
	session, closeSession, err := inMemorySession(ctx, s)
	if err != nil {
		return nil, err
	}
	defer closeSession()
	var tools []*mcp.Tool
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// inMemorySession connects a client to s over an in-memory transport.
func inMemorySession(ctx context.Context, s *toolserver.Server) (*mcp.ClientSession, func(), error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metatools-measure", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		_ = ss.Close()
		return nil, nil, err
	}
	return cs, func() { _ = cs.Close(); _ = ss.Close() }, nil
}

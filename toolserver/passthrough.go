package toolserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// passthroughName is the MCP name under which a catalogue tool is exposed
// directly: MCP names cannot hold ':', so "ns:name" becomes "ns.name",
// or "name" when its namespace keeps its names.
func (s *Server) passthroughName(id string) string {
	if ns, name, ok := strings.Cut(id, ":"); ok && s.keepNames[ns] {
		return name
	}
	return strings.Replace(id, ":", ".", 1)
}

// exposePassthrough exposes every catalogue tool that matches the
// passthrough patterns; later changes arrive through passthroughChanged.
func (s *Server) exposePassthrough(ctx context.Context) {
	req := toolops.SearchRequest{Limit: toolops.MaxSearchResults}
	for {
		page, err := s.ops.Search(ctx, req)
		if err != nil {
			s.logger.Error("passthrough: list the catalogue", "error", err)
			return
		}
		for _, item := range page.Tools {
			s.expose(ctx, item.ID)
		}
		if page.NextCursor == "" {
			return
		}
		req.Cursor = page.NextCursor
	}
}

// passthroughChanged follows one catalogue change. The go-sdk notifies
// clients of each tool added or removed.
func (s *Server) passthroughChanged(ctx context.Context, ev toolindex.ChangeEvent) {
	switch ev.Kind {
	case toolindex.ToolRegistered, toolindex.ToolUpdated:
		s.expose(ctx, ev.ToolID)
	case toolindex.ToolRemoved:
		s.mu.Lock()
		defer s.mu.Unlock()
		name := s.passthroughName(ev.ToolID)
		if s.exposed[name] == ev.ToolID {
			delete(s.exposed, name)
			s.mcp.RemoveTools(name)
		}
	}
}

// expose adds or updates the passthrough tool of a catalogue tool, when
// it is offered, its ID matches the patterns and its MCP name is free.
func (s *Server) expose(ctx context.Context, id string) {
	call := &toolrun.Call{}
	var err error
	if call.Tool, err = s.ops.Definition(ctx, id); err != nil {
		return // not offered, or removed meanwhile: its removal event follows
	}
	if (toolrun.AllowDeny{Allow: s.passthrough}).Authorize(ctx, call) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.passthroughName(id)
	if s.metaTools[name] {
		s.logger.Warn("passthrough: name of a meta-tool, tool not exposed", "name", name, "tool", id)
		s.clash(fmt.Sprintf("tool %q is exposed as %q, the name of a meta-tool", id, name))
		return
	}
	if owner, taken := s.exposed[name]; taken && owner != id {
		s.logger.Warn("passthrough: name taken, tool not exposed", "name", name, "tool", id, "by", owner)
		if s.keepsName(id) || s.keepsName(owner) {
			s.clash(fmt.Sprintf("tool %q is exposed as %q, the name of tool %q", id, name, owner))
		}
		return
	}
	exposed := call.Tool.MCP()
	exposed.Name = name
	s.mcp.AddTool(exposed, s.passthroughHandler(id))
	s.exposed[name] = id
}

// keepsName reports whether a tool is exposed under its own name.
func (s *Server) keepsName(id string) bool {
	ns, _, ok := strings.Cut(id, ":")
	return ok && s.keepNames[ns]
}

func (s *Server) passthroughHandler(id string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				e := errors.Errorf(errors.InvalidArgument, "the arguments of %s are not a JSON object: %v", req.Params.Name, err)
				e.Op, e.ToolID = "passthrough", id
				return toolError(e), nil
			}
		}
		res, instead, err := s.runCatalogueTool(ctx, req, toolops.RunRequest{ID: id, Args: args})
		if instead != nil || err != nil {
			return instead, err
		}
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: resultText(res)}}}
		if res.Tool.OutputSchema != nil {
			out.StructuredContent = res.Structured
		}
		return withContent(out, res), nil
	}
}

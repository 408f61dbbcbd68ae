package toolindex

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/metatools-go/metatools/toolmodel"
)

// cloneBackend returns a deep copy of b: the index keeps backends apart
// from its callers, since a ToolBackend holds pointers, maps and slices.
func cloneBackend(b toolmodel.ToolBackend) toolmodel.ToolBackend {
	c := b
	c.Config = maps.Clone(b.Config)
	if b.MCP != nil {
		m := *b.MCP
		c.MCP = &m
	}
	if b.Provider != nil {
		p := *b.Provider
		c.Provider = &p
	}
	if b.Local != nil {
		l := *b.Local
		c.Local = &l
	}
	if b.HTTP != nil {
		h := *b.HTTP
		h.QueryParams = slices.Clone(h.QueryParams)
		h.HeaderParams = slices.Clone(h.HeaderParams)
		h.Headers = maps.Clone(h.Headers)
		if h.Auth != nil {
			a := *h.Auth
			a.Scopes = slices.Clone(a.Scopes)
			h.Auth = &a
		}
		c.HTTP = &h
	}
	if b.GRPC != nil {
		g := *b.GRPC
		g.Metadata = maps.Clone(g.Metadata)
		if g.TLS != nil {
			t := *g.TLS
			g.TLS = &t
		}
		c.GRPC = &g
	}
	return c
}

// cloneBackends returns deep copies of backends.
func cloneBackends(backends []toolmodel.ToolBackend) []toolmodel.ToolBackend {
	out := make([]toolmodel.ToolBackend, len(backends))
	for i := range backends {
		out[i] = cloneBackend(backends[i])
	}
	return out
}

// sameBackend reports whether a and b have the same JSON form, the
// equality [toolmodel.Tool.Equal] uses for tools.
func sameBackend(a, b *toolmodel.ToolBackend) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

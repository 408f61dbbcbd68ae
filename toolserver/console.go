package toolserver

import (
	"context"
	"maps"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver/internal/oauth"
)

// Authenticate returns h behind the authentication [Server.HTTPHandler]
// puts in front of MCP with the same opts, for what a server serves next
// to it on the same listener (the web console): when opts ask clients to
// authenticate ([HTTPOptions.Authenticated]), a request without a valid
// bearer token or access token gets 401 with the same challenge, and the
// subject of a valid one is the caller of the request's operations
// ([toolops.CallerFrom], under [MetadataSubject]), as for an MCP request,
// so that the policies and the audit log see the same caller on both.
// Without authentication, h is returned as it is.
func (s *Server) Authenticate(opts HTTPOptions, h http.Handler) http.Handler {
	if !opts.Authenticated() {
		return h
	}
	identified := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := auth.TokenInfoFromContext(r.Context()); info != nil && info.UserID != "" {
			metadata := maps.Clone(toolops.CallerFrom(r.Context()).Metadata)
			if metadata == nil {
				metadata = map[string]string{}
			}
			metadata[MetadataSubject] = info.UserID
			r = r.WithContext(toolops.WithCaller(r.Context(), toolops.Caller{Metadata: metadata}))
		}
		h.ServeHTTP(w, r)
	})
	tools := oauth.Tools{Meta: func(name string) bool { return s.metaTools[name] }, Run: ToolRun}
	return oauth.NewGuard(opts.BearerTokens, opts.OAuth, tools, s.logger).Handler(identified)
}

// MayCall reports whether the request of ctx, authenticated by
// [Server.Authenticate] or [Server.HTTPHandler], may call the meta-tool
// tool: a request with a static bearer token or with none may call every
// tool, one with an OAuth access token those its scopes allow. The tool
// "*" asks whether it may call every tool (a scope granting "*").
func MayCall(ctx context.Context, tool string) bool {
	return oauth.Allows(auth.TokenInfoFromContext(ctx), tool)
}

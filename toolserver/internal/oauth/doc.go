// Package oauth makes an MCP endpoint a resource server: it authenticates
// requests with static bearer tokens or with OAuth 2.1 access tokens, and
// holds each access token to the tools its scopes allow.
//
// A [Guard] checks the token of every HTTP request (JWTs against the
// issuer's keys, discovered from its metadata and fetched again, within a
// rate, when a token names a key they do not hold), answers 401 and 403
// with the challenge that leads clients to the protected-resource
// metadata ([Options.MetadataHandler]), and refuses a tools/call beyond
// the token's scopes before it reaches the server. [EnforceGrants] holds
// every request that does reach the server to the same scopes: lists show
// only the tools a token may call, and the upstreams' resources, prompts
// and completions need the scope of the meta-tool that runs tools.
//
// The toolserver package mounts both on its HTTP handler.
package oauth

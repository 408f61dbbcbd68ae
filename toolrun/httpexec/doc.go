// Package httpexec runs tools served by HTTP APIs: it is the
// [toolrun.Executor] of [toolmodel.BackendHTTP] backends.
//
// A backend's [toolmodel.HTTPBackend] says how a call becomes a request
// (method, path template, query, header and body arguments, static
// headers, authentication, timeout); [Executor] documents the mapping in
// full, and how responses become outputs or errors. Tools are usually
// imported from an OpenAPI document by the sibling package
// toolrun/openapi, but any tool may have an HTTP backend.
//
// Register the executor like any other:
//
//	exec := httpexec.New(httpexec.WithSecrets(httpexec.EnvSecrets{Prefix: "MYAPP_"}))
//	defer exec.Close()
//	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
//		toolmodel.BackendHTTP: exec,
//	})
//	runner := toolrun.New(reg, toolrun.WithIndex(idx))
//	res, err := runner.Run(ctx, "petstore:getPetById", map[string]any{"petId": 7})
//
// # Errors and tool failures
//
// HTTP statuses from 400 up are Go errors of the repository's errors
// package, coded by status (404 not_found, 429 rate_limited, 5xx
// unavailable, ...; see [Executor]) with Meta["status"], so that the
// runner's retry policy retries what is worth retrying and honours
// Retry-After. An API whose errors are meant for the caller to read and
// act on (a 422 listing invalid fields, a 200 with {"ok": false}) can have
// them reported as tool failures instead, an Output with IsError set,
// with a [FailureRule] ([WithFailureRule], [FailOnStatus]).
//
// # Secrets
//
// A backend's [toolmodel.HTTPAuth] names its secrets; their values come
// from a [SecretSource] given to the executor (environment variables by
// default), never from the call's arguments, unless a pre-call hook of the
// runner puts them there. Errors name a missing secret but never show a
// value: URLs in errors lose their query, and response bodies quoted in
// errors are scrubbed of the secrets the call used. OAuth2 client
// credentials tokens are cached per backend configuration and reused until
// they expire; a 401 from the API drops the token, so the next call fetches
// a new one.
//
// Redirects are followed without sending a Referer, whose URL may hold an
// API key in its query. A redirect to another origin (scheme, host and
// port) than the call's first request loses every credential of the
// backend: the auth headers, API key header or query parameter, the static
// headers, cookies, and any header or parameter holding one of the call's
// secrets. A redirect within the origin keeps them.
//
// # How to plug in your own
//
// To take secrets from a vault or a keychain, implement [SecretSource]
// (or wrap a function in [SecretSourceFunc]) and pass it to
// [WithSecrets]; a source that reads the call's context gives each caller
// credentials of their own. To change how requests are sent (proxies, mTLS, tracing),
// pass an *http.Client of your own to [WithHTTPClient]. To decide which
// responses are tool failures, write a [FailureRule].
package httpexec

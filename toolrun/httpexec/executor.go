package httpexec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// opExecute is the Op of the errors the executor returns.
const opExecute = "httpexec.Execute"

// DefaultMaxResponseBytes is the largest response body the executor reads
// unless told otherwise with [WithMaxResponseBytes]: 10 MiB.
const DefaultMaxResponseBytes = 10 << 20

// DefaultMaxRetryAfter is the longest Retry-After the executor lets a
// retry policy wait unless told otherwise with [WithMaxRetryAfter].
const DefaultMaxRetryAfter = time.Minute

// Executor is the [toolrun.Executor] of [toolmodel.BackendHTTP] backends:
// it turns a call into one HTTP request as the backend's
// [toolmodel.HTTPBackend] describes, and the response into an
// [toolrun.Output] or an error.
//
// The request: the backend's Path below its BaseURL, each {name} replaced
// by the argument of that name, URL-escaped (a missing or empty one is an
// [errors.InvalidArgument] error, and so is "." or ".."); the QueryParams
// arguments in the query, an array as the parameter repeated, an object as
// its JSON text; the HeaderParams arguments as headers, an array as a
// comma-separated list; the static Headers; a body made of the argument
// named BodyParam when it is set, else of every other argument (POST, PUT
// and PATCH send {} when there is none, other methods send no body), as
// JSON or, with BodyEncoding [toolmodel.BodyForm], as an HTML form whose
// fields are written as query parameters are (null ones left out); then
// the credentials of the backend's Auth, which win over any
// header of the same name. Secrets come from the executor's
// [SecretSource], never from the arguments.
//
// The response: a JSON body (application/json, */*+json) is decoded into
// Output.Structured, and its text is also given as text content; other
// text is text content; an image/* or audio/* body is image or audio
// content; any other binary body is an embedded resource holding the bytes
// (which MCP transmits in base64), named by the request URL. An empty body
// gives an empty output.
//
// Statuses from 400 up are Go errors, *errors.Error values whose message
// holds the body's error message (truncated, scrubbed of the call's
// secrets) and whose Meta["status"] holds the status:
//
//	401                 unauthenticated
//	403                 permission_denied
//	404, 410            not_found
//	408, 504            timeout            retryable
//	409                 conflict
//	429                 rate_limited       retryable
//	501                 unsupported
//	other 5xx           unavailable        retryable
//	other 4xx           invalid_argument
//
// A 429 or 5xx response's Retry-After (seconds or an HTTP date) is
// recorded with [toolrun.WithRetryAfter], which [toolrun.ExponentialBackoff]
// honours; a wait longer than the executor's limit ([WithMaxRetryAfter])
// makes the error not retryable instead. A [FailureRule] may instead
// declare some responses to be the tool's own failure, returned as an
// Output with IsError set: an API that answers 422 with a message meant
// for its caller, or 200 with {"ok": false}.
//
// Redirects are followed without a Referer; one to another origin than
// the request's drops the backend's credentials, its static headers and
// cookies (see the package documentation).
//
// A body larger than the limit ([WithMaxResponseBytes]) fails with
// [errors.ResourceExhausted]. The backend's Timeout bounds each request
// on top of ctx: when it expires the error has code timeout and is
// retryable. An expired ctx gives timeout and a canceled one canceled;
// a refused or broken connection is unavailable and retryable. A request
// that never left (it could not be built, its credentials could not be
// obtained, or connecting failed: a refused connection, an unknown host)
// is marked [toolrun.MarkNotSent], so that the runner may retry it
// whatever the method; any other failure is retried only for an
// idempotent tool (see [toolrun.SafeToRepeat]): a POST answered 500 is
// not sent again, a GET answered 503 is.
//
// An Executor is safe for concurrent use. It implements [io.Closer]:
// Close releases the idle connections of a client it made itself and
// forgets its cached OAuth2 tokens.
type Executor struct {
	client        *http.Client
	ownTransport  *http.Transport
	secrets       SecretSource
	maxBody       int64
	maxRetryAfter time.Duration
	rules         []FailureRule
	tokens        tokenCache
	// tracer, when set, traces the requests ([WithTracerProvider]).
	tracer trace.Tracer
}

var (
	_ toolrun.Executor = (*Executor)(nil)
	_ io.Closer        = (*Executor)(nil)
)

// Option configures an [Executor].
type Option func(*Executor)

// WithHTTPClient makes the executor send its requests, token requests
// included, with c. By default it uses a client of its own on a clone of
// [http.DefaultTransport]. The executor never modifies c, and Close leaves
// c's connections alone.
func WithHTTPClient(c *http.Client) Option {
	return func(e *Executor) {
		if c != nil {
			e.client = c
		}
	}
}

// WithSecrets sets where secrets come from; the default is [EnvSecrets]{}.
func WithSecrets(s SecretSource) Option {
	return func(e *Executor) {
		if s != nil {
			e.secrets = s
		}
	}
}

// WithMaxResponseBytes caps the response bodies the executor reads; n < 1
// means [DefaultMaxResponseBytes].
func WithMaxResponseBytes(n int64) Option {
	return func(e *Executor) {
		if n > 0 {
			// One byte more is read to detect a longer body.
			e.maxBody = min(n, math.MaxInt64-1)
		}
	}
}

// WithMaxRetryAfter sets the longest Retry-After that leaves a response
// retryable; d < 0 means [DefaultMaxRetryAfter].
func WithMaxRetryAfter(d time.Duration) Option {
	return func(e *Executor) {
		if d >= 0 {
			e.maxRetryAfter = d
		}
	}
}

// WithFailureRule adds a rule declaring responses to be the tool's own
// failure; a response is one when any rule says so.
func WithFailureRule(rule FailureRule) Option {
	return func(e *Executor) {
		if rule != nil {
			e.rules = append(e.rules, rule)
		}
	}
}

// New returns an executor configured by opts.
func New(opts ...Option) *Executor {
	e := &Executor{
		secrets:       EnvSecrets{},
		maxBody:       DefaultMaxResponseBytes,
		maxRetryAfter: DefaultMaxRetryAfter,
	}
	for _, opt := range opts {
		opt(e)
	}
	if e.client == nil {
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			e.ownTransport = t.Clone()
		} else {
			e.ownTransport = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
		e.client = &http.Client{Transport: e.ownTransport}
	}
	return e
}

// Close implements [io.Closer]: it closes the idle connections of the
// executor's own client, if it made one, and forgets the cached OAuth2
// tokens. The executor stays usable. It always returns nil.
func (e *Executor) Close() error {
	if e.ownTransport != nil {
		e.ownTransport.CloseIdleConnections()
	}
	e.tokens.clear()
	return nil
}

// Execute implements [toolrun.Executor].
func (e *Executor) Execute(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
	b := call.Backend.HTTP
	if b == nil {
		return toolrun.Output{}, errors.Opf(opExecute, errors.InvalidArgument, "backend %s is not an HTTP backend", call.Backend.Identity())
	}
	parent := ctx
	if b.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(b.Timeout))
		defer cancel()
	}
	var secrets []string
	req, err := e.newRequest(ctx, b, call.Args, &secrets)
	if err != nil {
		// Nothing was sent: the request could not be built, or its
		// credentials not obtained.
		return toolrun.Output{}, notSent(contextual(parent, ctx, err, b))
	}
	where := req.Method + " " + toolrun.RedactURL(req.URL.String())
	span := e.startSpan(ctx, req)
	resp, err := e.clientFor(b, secrets).Do(req)
	endSpan(span, resp, err)
	if err != nil {
		ae := contextual(parent, ctx, transportError(where, err), b)
		if dialFailed(err) {
			ae = notSent(ae)
		}
		return toolrun.Output{}, ae
	}
	defer func() { _ = resp.Body.Close() }()

	body, truncated, err := e.readBody(resp)
	if err != nil {
		return toolrun.Output{}, contextual(parent, ctx, transportError(where, err), b)
	}
	if truncated && resp.StatusCode < 400 {
		ae := errors.Opf(opExecute, errors.ResourceExhausted, "%s: the response body exceeds the limit of %d bytes", where, e.maxBody)
		ae.Meta = map[string]string{"status": fmt.Sprint(resp.StatusCode), "limit": fmt.Sprint(e.maxBody)}
		return toolrun.Output{}, ae
	}
	r := newResponse(resp, body)
	for _, rule := range e.rules {
		if rule(r) {
			return failureOutput(r), nil
		}
	}
	if resp.StatusCode >= 400 {
		if resp.StatusCode == http.StatusUnauthorized && b.Auth != nil && b.Auth.Type == toolmodel.AuthOAuth2Client {
			e.tokens.forget(b.Auth)
		}
		return toolrun.Output{}, e.statusError(where, r, secrets)
	}
	return successOutput(r, toolrun.RedactURL(req.URL.String())), nil
}

// readBody reads resp's body up to the executor's limit. It reports
// whether the body was longer; it then returns the first maxBody bytes.
func (e *Executor) readBody(resp *http.Response) ([]byte, bool, error) {
	if resp.ContentLength > e.maxBody && resp.StatusCode < 400 {
		return nil, true, nil
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		// The server's word sizes the buffer only up to the limit.
		buf.Grow(int(min(resp.ContentLength, e.maxBody+1)))
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, e.maxBody+1))
	if err != nil {
		return nil, false, err
	}
	if n > e.maxBody {
		return buf.Bytes()[:e.maxBody], true, nil
	}
	return buf.Bytes(), false, nil
}

// notSent marks err, when it is an *errors.Error, as the failure of a
// request that never reached the server ([toolrun.MarkNotSent]).
func notSent(err error) error {
	var ae *errors.Error
	if errors.As(err, &ae) {
		_ = toolrun.MarkNotSent(ae) // marks ae, in err's chain
	}
	return err
}

// contextual returns err classified by the contexts when one of them is
// done: the caller's (parent) deadline is a timeout and its cancellation
// canceled; the backend's own timeout (ctx) is a retryable timeout.
func contextual(parent, ctx context.Context, err error, b *toolmodel.HTTPBackend) error {
	switch {
	case parent.Err() != nil:
		var cause error
		if !errors.Is(err, parent.Err()) {
			// The context's end is the cause; err only says where, and
			// its code is not the call's: keep its text alone.
			cause = errors.New(err.Error())
		}
		return errors.FromContext(parent, opExecute, cause)
	case ctx.Err() != nil:
		ae := errors.Opf(opExecute, errors.Timeout, "the backend's timeout of %s expired: %v", time.Duration(b.Timeout), err)
		ae.Retryable = true
		return ae
	}
	return err
}

package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
)

// maxRedirects is the most redirects http:fetch follows.
const maxRedirects = 5

// exampleHost returns a host of the list for examples: the first single
// name or address, with its port when the entry names one, else a
// subdomain of the first wildcard.
func (a *allowList) exampleHost() string {
	for _, e := range a.entries {
		if strings.HasPrefix(e.name, "*.") || e.prefix.IsValid() && e.prefix.Bits() != e.prefix.Addr().BitLen() {
			continue
		}
		host := e.name
		if e.prefix.IsValid() {
			host = e.prefix.Addr().String()
		}
		if e.port != 0 {
			return net.JoinHostPort(host, strconv.Itoa(e.port))
		}
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	for _, e := range a.entries {
		if wildcard, ok := strings.CutPrefix(e.name, "*"); ok {
			return "www" + wildcard
		}
	}
	return a.entries[0].prefix.Addr().String()
}

// forbiddenHeaders are the request headers a call may not set: the
// transport manages them.
var forbiddenHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Connection": true, "Transfer-Encoding": true,
	"Upgrade": true, "Te": true, "Trailer": true, "Keep-Alive": true, "Proxy-Connection": true,
}

// keptHeaders are the response headers http:fetch returns, besides the
// rate-limit ones.
var keptHeaders = []string{
	"Content-Type", "Content-Length", "Content-Language", "Content-Disposition", "Last-Modified", "Etag",
	"Cache-Control", "Expires", "Date", "Location", "Retry-After", "Link",
}

type fetchInput struct {
	URL      string            `json:"url" jsonschema:"The absolute http or https URL to fetch; its host must be on the allow-list."`
	Method   string            `json:"method,omitempty"`
	Headers  map[string]string `json:"headers,omitempty" jsonschema:"Request headers, such as {\"Accept\": \"application/json\"}. Host, Content-Length, Connection and the other hop-by-hop headers cannot be set."`
	MaxBytes int64             `json:"maxBytes,omitempty"`
}

type fetchOutput struct {
	URL         string            `json:"url" jsonschema:"The URL of the response, after redirects."`
	Status      int               `json:"status" jsonschema:"The HTTP status code. A 4xx or 5xx status is a response like any other, not a failure of the tool."`
	ContentType string            `json:"contentType,omitempty" jsonschema:"The media type of the body, with its parameters."`
	Headers     map[string]string `json:"headers" jsonschema:"Response headers that matter to a reader: content type and length, caching, dates, location and rate limits, by lower-case name."`
	Body        string            `json:"body" jsonschema:"The body as text; empty for HEAD, for a body parsed into json and for a binary body."`
	JSON        any               `json:"json,omitempty" jsonschema:"The body parsed, when it is JSON and was read whole."`
	Bytes       int               `json:"bytes" jsonschema:"The number of body bytes read."`
	Truncated   bool              `json:"truncated" jsonschema:"Set when the body was longer than maxBytes: body holds its start."`
	Binary      bool              `json:"binary" jsonschema:"Set when the body is not UTF-8 text; it is left out."`
}

// fetcher serves http:fetch.
type fetcher struct {
	allow    *allowList
	client   *http.Client
	maxBytes int64
	timeout  time.Duration
}

func httpFetchTool(cfg *config) (Tool, error) {
	allow, err := parseAllowList(cfg.httpHosts)
	if err != nil {
		return Tool{}, err
	}
	client := *cfg.httpClient
	switch t := client.Transport.(type) {
	case nil:
		guarded := http.DefaultTransport.(*http.Transport).Clone()
		// The default transport's dial function is the standard dialer's:
		// without it, the guard checks each address before connecting.
		guarded.DialContext = nil
		allow.guardTransport(guarded)
		client.Transport = guarded
	case *http.Transport:
		guarded := t.Clone()
		allow.guardTransport(guarded)
		client.Transport = guarded
	}
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if err := allow.check(req.URL); err != nil {
			return fmt.Errorf("redirect to %s refused: %w", req.URL.Redacted(), err)
		}
		return nil
	}
	f := &fetcher{allow: allow, client: &client, maxBytes: cfg.httpMaxBytes, timeout: cfg.httpTimeout}
	base := "https://" + allow.exampleHost() + "/"
	return newTool(spec{
		namespace: "http",
		name:      "fetch",
		title:     "Fetch a URL",
		description: "Send an HTTP GET or HEAD request and return the status, the main headers and the body as text (JSON bodies parsed). " +
			fmt.Sprintf("Follows up to %d redirects, reads at most %d bytes of the body (longer bodies are truncated and flagged) and gives up after %s. ", maxRedirects, cfg.httpMaxBytes, cfg.httpTimeout) +
			"Only these hosts can be reached: " + allow.displays() + " (\"*.\" stands for any subdomain; ports 80 and 443 unless a port is named).",
		tags:      []string{"http", "fetch", "web", "url", "download", "api", "get"},
		openWorld: true,
		input: func(props map[string]*jsonschema.Schema) {
			props["method"].Description = "The request method: GET, or HEAD for the status and headers only."
			props["method"].Enum = []any{"GET", "HEAD"}
			props["method"].Default = []byte(`"GET"`)
			props["maxBytes"].Description = fmt.Sprintf("The most bytes of the body to read (default and limit %d).", cfg.httpMaxBytes)
			props["maxBytes"].Minimum = ptr(1.0)
			props["maxBytes"].Maximum = ptr(float64(cfg.httpMaxBytes))
		},
		examples: []Example{
			{Name: "get", Description: "Fetch a page.", Args: map[string]any{"url": base}},
			{Name: "get-json", Description: "Ask for JSON and read at most 64 KiB.", Args: map[string]any{"url": base, "headers": map[string]any{"Accept": "application/json"}, "maxBytes": min(64<<10, cfg.httpMaxBytes)}},
			{Name: "head", Description: "Check that a URL answers, without downloading it.", Args: map[string]any{"url": base, "method": "HEAD"}},
		},
	}, f.fetch)
}

// FetchID is the ID of the tool that fetches URLs, which the catalogue
// includes only when [WithHTTPAllowList] names hosts it may reach.
const FetchID = "http:fetch"

func (f *fetcher) fetch(ctx context.Context, in fetchInput) (fetchOutput, error) {
	const id = FetchID
	method := in.Method
	if method == "" {
		method = http.MethodGet
	}
	if method != http.MethodGet && method != http.MethodHead {
		return fetchOutput{}, validationError(id, "method %q is not GET or HEAD", in.Method)
	}
	maxBytes := in.MaxBytes
	if maxBytes == 0 {
		maxBytes = f.maxBytes
	}
	if maxBytes < 0 || maxBytes > f.maxBytes {
		return fetchOutput{}, validationError(id, "maxBytes is %d, it must be from 1 to %d", maxBytes, f.maxBytes)
	}
	u, err := url.Parse(in.URL)
	if err != nil {
		return fetchOutput{}, fmt.Errorf("invalid URL: %w", err)
	}
	if err := f.allow.check(u); err != nil {
		return fetchOutput{}, err
	}

	reqCtx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u.String(), nil)
	if err != nil {
		return fetchOutput{}, fmt.Errorf("invalid request: %w", err)
	}
	for name, value := range in.Headers {
		if forbiddenHeaders[http.CanonicalHeaderKey(name)] {
			return fetchOutput{}, validationError(id, "header %q cannot be set", name)
		}
		req.Header.Set(name, value)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "metatools-fetch")
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fetchOutput{}, f.failure(ctx, u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return fetchOutput{}, f.failure(ctx, u, fmt.Errorf("read the body: %w", err))
	}

	out := fetchOutput{
		URL:         resp.Request.URL.Redacted(),
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Headers:     keepHeaders(resp.Header),
	}
	if int64(len(body)) > maxBytes {
		body, out.Truncated = trimPartialRune(body[:maxBytes]), true
	}
	out.Bytes = len(body)
	switch {
	case !utf8.Valid(body):
		out.Binary = true
	case !out.Truncated && isJSONType(out.ContentType) && json.Unmarshal(body, &out.JSON) == nil && out.JSON != nil:
		// Parsed into json. A JSON null, which json would leave out,
		// stays in body.
	default:
		out.Body = string(body)
	}
	return out, nil
}

// failure describes an error of the request: the context's own error
// when the call is done, so the run fails as canceled or timed out, else
// a failure of the tool.
func (f *fetcher) failure(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("fetch %s: no complete response within %s", u.Redacted(), f.timeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("fetch %s: %w", u.Redacted(), err)
}

// keepHeaders returns the headers a reader needs, by lower-case name.
func keepHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	add := func(name string, values []string) {
		if len(values) > 0 {
			out[strings.ToLower(name)] = strings.Join(values, ", ")
		}
	}
	for _, name := range keptHeaders {
		add(name, h.Values(name))
	}
	for name, values := range h {
		if lower := strings.ToLower(name); strings.HasPrefix(lower, "x-ratelimit-") || strings.HasPrefix(lower, "ratelimit") {
			add(name, values)
		}
	}
	return out
}

// isJSONType reports whether a Content-Type is JSON.
func isJSONType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b,
// left by a truncation.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

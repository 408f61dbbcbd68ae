package httpexec

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// Response is an HTTP response as a [FailureRule] sees it. A rule must not
// modify it or keep it.
type Response struct {
	// StatusCode is the response's status, such as 200.
	StatusCode int
	// Header is the response's header.
	Header http.Header
	// MediaType is the body's media type, lower-cased and without
	// parameters, such as "application/json"; empty when not given.
	MediaType string
	// Body is the response body, truncated to the executor's limit for
	// statuses from 400 up.
	Body []byte
	// JSON is the decoded body when the media type is JSON and the body
	// decodes, else nil. Numbers are float64.
	JSON any
}

// FailureRule reports whether a response is the tool's own failure, to
// be returned as an Output with IsError set rather than as a success or a
// Go error. Rules run on every response, before the status is looked at,
// and must be safe for concurrent use.
type FailureRule func(resp *Response) bool

// FailOnStatus returns a rule declaring the responses of the given
// statuses to be tool failures: typically 400 and 422, whose bodies tell
// the caller what to fix.
func FailOnStatus(statuses ...int) FailureRule {
	statuses = slices.Clone(statuses)
	return func(resp *Response) bool { return slices.Contains(statuses, resp.StatusCode) }
}

// newResponse describes resp, whose body is body.
func newResponse(resp *http.Response, body []byte) *Response {
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			r.MediaType = mt
		}
	}
	if isJSON(r.MediaType) && len(body) > 0 {
		var v any
		if json.Unmarshal(body, &v) == nil {
			r.JSON = v
		}
	}
	return r
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || mediaType == "text/json" || strings.HasSuffix(mediaType, "+json")
}

// isText reports whether a body of the given media type is text, given
// that it is valid UTF-8. A body without a media type counts as text.
func isText(mediaType string) bool {
	switch {
	case mediaType == "", strings.HasPrefix(mediaType, "text/"), isJSON(mediaType),
		strings.HasSuffix(mediaType, "+xml"), strings.HasSuffix(mediaType, "+yaml"):
		return true
	}
	switch mediaType {
	case "application/xml", "application/yaml", "application/x-yaml", "application/javascript",
		"application/x-www-form-urlencoded", "application/x-ndjson", "application/graphql", "application/csv":
		return true
	}
	return false
}

// successOutput returns the output of a response that is not a failure.
// uri names the resource, for a binary body.
func successOutput(r *Response, uri string) toolrun.Output {
	if len(r.Body) == 0 {
		return toolrun.Output{}
	}
	if r.JSON != nil {
		return toolrun.Output{Structured: r.JSON, Content: []mcp.Content{&mcp.TextContent{Text: string(r.Body)}}}
	}
	switch {
	case strings.HasPrefix(r.MediaType, "image/"):
		return toolrun.Output{Content: []mcp.Content{&mcp.ImageContent{Data: r.Body, MIMEType: r.MediaType}}}
	case strings.HasPrefix(r.MediaType, "audio/"):
		return toolrun.Output{Content: []mcp.Content{&mcp.AudioContent{Data: r.Body, MIMEType: r.MediaType}}}
	case isText(r.MediaType) && utf8.Valid(r.Body):
		return toolrun.Output{Content: []mcp.Content{&mcp.TextContent{Text: string(r.Body)}}}
	}
	mediaType := r.MediaType
	if mediaType == "" {
		mediaType = "application/octet-stream"
	}
	return toolrun.Output{Content: []mcp.Content{&mcp.EmbeddedResource{
		Resource: &mcp.ResourceContents{URI: uri, MIMEType: mediaType, Blob: r.Body},
	}}}
}

// failureOutput returns the output of a response a rule declared a tool
// failure: its JSON as the structured result, its text as content.
func failureOutput(r *Response) toolrun.Output {
	text := string(r.Body)
	if !utf8.Valid(r.Body) || len(r.Body) == 0 {
		text = fmt.Sprintf("HTTP %d %s", r.StatusCode, http.StatusText(r.StatusCode))
	}
	return toolrun.Output{IsError: true, Structured: r.JSON, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// statusCode returns the code of an error status and whether it is
// retryable by default.
func statusCode(status int) (errors.Code, bool) {
	switch {
	case status == http.StatusUnauthorized:
		return errors.Unauthenticated, false
	case status == http.StatusForbidden:
		return errors.PermissionDenied, false
	case status == http.StatusNotFound, status == http.StatusGone:
		return errors.NotFound, false
	case status == http.StatusRequestTimeout, status == http.StatusGatewayTimeout:
		return errors.Timeout, true
	case status == http.StatusConflict:
		return errors.Conflict, false
	case status == http.StatusTooManyRequests:
		return errors.RateLimited, true
	case status == http.StatusNotImplemented:
		return errors.Unsupported, false
	case status >= 500:
		return errors.Unavailable, true
	}
	return errors.InvalidArgument, false
}

// maxMessage is the most bytes of a response body an error message shows.
const maxMessage = 512

// statusError returns the error of a response whose status is 400 or
// more.
func (e *Executor) statusError(where string, r *Response, secrets []string) *errors.Error {
	code, retryable := statusCode(r.StatusCode)
	msg := errorMessage(r.Body)
	if r.JSON != nil {
		msg = jsonMessage(r.JSON, msg)
	}
	msg = truncate(scrub(msg, secrets), maxMessage)
	if msg == "" {
		msg = http.StatusText(r.StatusCode)
	}
	ae := errors.Opf(opExecute, code, "%s: HTTP %d: %s", where, r.StatusCode, msg)
	ae.Retryable = retryable
	ae.Meta = map[string]string{"status": strconv.Itoa(r.StatusCode)}
	if retryable {
		if d, ok := parseRetryAfter(r.Header.Get("Retry-After"), time.Now()); ok {
			ae = toolrun.WithRetryAfter(ae, d)
			if d > e.maxRetryAfter {
				// Waiting that long inside a call is not reasonable; the
				// caller sees the delay in Meta and may come back.
				ae.Retryable = false
			}
		}
	}
	return ae
}

// jsonMessage returns the error message of a JSON error body, from the
// fields APIs commonly use, or fallback.
func jsonMessage(v any, fallback string) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return fallback
	}
	for _, key := range []string{"message", "error_description", "detail", "title", "error"} {
		switch x := obj[key].(type) {
		case string:
			if x != "" {
				return x
			}
		case map[string]any:
			if m, ok := x["message"].(string); ok && m != "" {
				return m
			}
		}
	}
	return fallback
}

// errorMessage returns a body as an error message: its text, compacted
// when it is JSON, or a note when it is binary.
func errorMessage(body []byte) string {
	if !utf8.Valid(body) {
		return fmt.Sprintf("(%d bytes of binary data)", len(body))
	}
	return strings.Join(strings.Fields(string(body)), " ")
}

// truncate cuts s to at most n bytes, on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return toolmodel.CutUTF8(s, n) + "…"
}

// scrub replaces every secret in s.
func scrub(s string, secrets []string) string {
	for _, secret := range secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}

// transportError classifies a failure to exchange a request, where
// describes the request (with its URL redacted). The URL inside
// *url.Error is dropped, as it may carry secrets.
func transportError(where string, err error) *errors.Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostname):
		// A certificate problem does not go away by retrying.
		ae := errors.Opf(opExecute, errors.Unavailable, "%s: %w", where, err)
		ae.Retryable = false
		return ae
	case errors.As(err, &netErr) && netErr.Timeout():
		return errors.Opf(opExecute, errors.Timeout, "%s: %w", where, err)
	}
	return errors.Opf(opExecute, errors.Unavailable, "%s: %w", where, err)
}

// dialFailed reports whether a request failed to connect to its server
// (or its proxy): a refused connection, a host name that does not
// resolve, no route to the host. No byte of the request was sent.
func dialFailed(err error) bool {
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// parseRetryAfter parses a Retry-After value: a number of seconds or an
// HTTP date, relative to now. A date in the past means no wait.
func parseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if value[0] >= '0' && value[0] <= '9' {
		secs, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return 0, false
		}
		// Beyond this, the duration would overflow: it is forever anyway.
		const maxSeconds = uint64(1<<63-1) / uint64(time.Second)
		return time.Duration(min(secs, maxSeconds)) * time.Second, true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

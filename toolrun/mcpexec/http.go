package mcpexec

import (
	"net/http"
	"sync/atomic"
)

// httpTransport is the round tripper of a URL server: it adds the
// configured headers to every request, and remembers the status of the
// latest failed response, so that a connection the server refused is
// classified by its status (a 401 is unauthenticated, not unavailable):
// the SDK's errors carry only the status text.
type httpTransport struct {
	base    http.RoundTripper
	headers http.Header
	// owned reports that base belongs to this transport, whose idle
	// connections are closed with the server.
	owned      bool
	lastFailed atomic.Int32
}

// newHTTPClient returns the client of a URL server, built on the
// configured client when there is one.
func newHTTPClient(cfg *ServerConfig) (*http.Client, *httpTransport) {
	t := &httpTransport{headers: http.Header{}}
	for k, v := range cfg.Headers {
		t.headers.Set(k, v)
	}
	client := &http.Client{}
	if cfg.HTTPClient != nil {
		*client = *cfg.HTTPClient
	}
	t.base = client.Transport
	if t.base == nil {
		t.base = http.DefaultTransport
		// A server without a client of its own gets its own connection
		// pool, which closing the server empties.
		if def, ok := http.DefaultTransport.(*http.Transport); ok && cfg.HTTPClient == nil {
			t.base, t.owned = def.Clone(), true
		}
	}
	client.Transport = t
	return client, t
}

// RoundTrip implements [http.RoundTripper].
func (t *httpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		// A round tripper must not modify the request it is given.
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header[k] = v
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode >= 400 {
		t.lastFailed.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// takeFailedStatus returns the status of the latest failed response since
// the previous call, or 0.
func (t *httpTransport) takeFailedStatus() int {
	return int(t.lastFailed.Swap(0))
}

// close releases the idle connections of a transport of its own.
func (t *httpTransport) close() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok && t.owned {
		c.CloseIdleConnections()
	}
}

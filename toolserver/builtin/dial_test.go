package builtin_test

import (
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/builtin"
)

// TestHTTPFetchRefusesBeforeConnecting fetches, with the default client,
// through a name that resolves to loopback addresses, at a port that is
// open and at one that is closed: both are refused with the same words,
// before any connection, so that http:fetch cannot scan ports.
func TestHTTPFetchRefusesBeforeConnecting(t *testing.T) {
	var accepted atomic.Int64
	var open []int
	for _, network := range []string{"tcp4", "tcp6"} {
		ln, err := net.Listen(network, "localhost:0")
		if err != nil {
			continue // a machine without this family
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				_ = c.Close()
			}
		}()
		open = append(open, ln.Addr().(*net.TCPAddr).Port)
	}
	require.NotEmpty(t, open)
	closed, err := net.Listen("tcp", "localhost:0")
	require.NoError(t, err)
	closedPort := closed.Addr().(*net.TCPAddr).Port
	require.NoError(t, closed.Close())

	var answers []string
	for _, port := range append(open, closedPort) {
		p := strconv.Itoa(port)
		h := newHarness(t, builtin.WithHTTPAllowList("localhost:"+p))
		msg := h.toolError(t, "http:fetch", map[string]any{"url": "http://localhost:" + p + "/"})
		assert.Contains(t, msg, "is a loopback address", "port %s", p)
		assert.NotContains(t, msg, "refused", "port %s", p)
		answers = append(answers, strings.ReplaceAll(msg, p, "PORT"))
	}
	for _, a := range answers[1:] {
		assert.Equal(t, answers[0], a, "an open and a closed port read alike")
	}
	assert.Zero(t, accepted.Load(), "no connection was made")
}

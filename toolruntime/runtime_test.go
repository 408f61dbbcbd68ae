package toolruntime_test

import (
	"context"
	"testing"

	"github.com/metatools-go/metatools/errors"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolruntime"
)

// pooledBackend is a pipeBackend that starts sandboxes ahead: it records
// the limits it warms and whether it was closed.
type pooledBackend struct {
	pipeBackend
	warmed  []toolruntime.Limits
	closed  bool
	warmErr error
}

// Enforces claims what any profile requires: the test runs nothing.
func (b *pooledBackend) Enforces(toolruntime.Limits) toolruntime.LimitsEnforced {
	var rows toolruntime.LimitsEnforced
	for _, name := range toolruntime.Hardened.Requires() {
		rows = append(rows, toolruntime.Enforce(name, nil, "test"))
	}
	return rows
}

func (b *pooledBackend) Warm(_ context.Context, l toolruntime.Limits) error {
	b.warmed = append(b.warmed, l)
	return b.warmErr
}

func (b *pooledBackend) Close(context.Context) error {
	b.closed = true
	return nil
}

// TestRuntimeWarmsAndClosesItsBackends shows that a runtime warms its
// backends with the limits its executions run under, so that the pools
// filled are those the programs take from, reports which profile failed
// to warm, and closes them.
func TestRuntimeWarmsAndClosesItsBackends(t *testing.T) {
	standard := &pooledBackend{}
	hardened := &pooledBackend{warmErr: errors.New("no module")}
	limits := toolruntime.Limits{Memory: 96 << 20}
	rt, err := toolruntime.New(
		toolruntime.WithBackend(toolruntime.Dev, pipeBackend{}), // neither a Warmer nor a Closer
		toolruntime.WithBackend(toolruntime.Standard, standard),
		toolruntime.WithBackend(toolruntime.Hardened, hardened),
		toolruntime.WithLimits(limits))
	require.NoError(t, err)

	err = rt.Warm(t.Context())
	require.ErrorContains(t, err, "profile hardened: no module")
	assert.NotContains(t, err.Error(), "standard")
	assert.Equal(t, []toolruntime.Limits{rt.Limits()}, standard.warmed)
	assert.Equal(t, []toolruntime.Limits{rt.Limits()}, hardened.warmed)
	assert.Equal(t, int64(96<<20), rt.Limits().Memory, "the limits set, their other fields the defaults")

	require.NoError(t, rt.Close(t.Context()))
	assert.True(t, standard.closed)
	assert.True(t, hardened.closed)
}

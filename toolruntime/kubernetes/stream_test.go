package kubernetes

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolruntime"
)

// execute runs a JavaScript program through b under a toolcode executor,
// on a fresh fixture with the runner options opts.
func execute(t testing.TB, ctx context.Context, b *Backend, code string, wall time.Duration, opts ...toolrun.Option) (*toolcode.Result, error) {
	t.Helper()
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, b))
	require.NoError(t, err)
	engine, err := rt.Engine(toolruntime.Dev, "javascript")
	require.NoError(t, err)
	f := toolcodetest.NewFixture(t, opts...)
	x := toolcode.New(f.Index, f.Docs, f.Runner, toolcode.WithEngine(engine))
	return x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: code, Limits: toolcode.Limits{WallTime: wall}, Timeout: wall})
}

func TestStreamRun(t *testing.T) {
	c := newCluster(t)
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"default", nil}, {"spdy", []Option{WithSPDY()}}} {
		t.Run(mode.name, func(t *testing.T) {
			b := c.newBackend(t, mode.opts...)
			res, err := execute(t, context.Background(), b, `const r = await tools.math.add({a: 40, b: 2}); return r.sum;`, 20*time.Second)
			require.NoError(t, err)
			assert.JSONEq(t, `42`, string(res.Value))
			assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace))
		})
	}
}

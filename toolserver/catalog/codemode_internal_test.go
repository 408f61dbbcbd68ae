package catalog

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolserver/config"
)

// TestLocateSaysHowToGetTheRunner shows that the error for a runner found
// nowhere names the make target that builds it and the setting that
// points to it, and that a configured file that is not there is named by
// its setting.
func TestLocateSaysHowToGetTheRunner(t *testing.T) {
	_, err := sandboxFile{name: "no-such-runner.wasm", setting: "wasmModule", target: "runner-wasm"}.locate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-such-runner.wasm is neither next to the metatools executable nor on the PATH")
	assert.Contains(t, err.Error(), "build it with `make runner-wasm`, or set codeMode.sandbox.wasmModule")

	missing := filepath.Join(t.TempDir(), "runner")
	_, err = sandboxFile{missing, "toolruntime-runner", "runner", "runner"}.locate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "codeMode.sandbox.runner: stat "+missing)

	present := t.TempDir()
	found, err := sandboxFile{present, "x", "runner", "runner"}.locate()
	require.NoError(t, err)
	assert.Equal(t, present, found)
}

// TestSpareSandboxes checks what a catalogue asks of the sandbox: a
// server's code mode keeps the engines' defaults ready, and a catalogue
// built WithoutSpareSandboxes, for a process that runs one program, none.
func TestSpareSandboxes(t *testing.T) {
	var asked []spares
	original := newBackend
	newBackend = func(p toolruntime.SecurityProfile, sb config.Sandbox, sp spares) (toolruntime.Backend, error) {
		asked = append(asked, sp)
		return original(p, sb, sp)
	}
	t.Cleanup(func() { newBackend = original })
	ctx := context.Background()
	build := func(cfg *config.Config, opts ...Option) *Catalog {
		opts = append(opts, WithLogger(slog.New(slog.DiscardHandler)))
		c, err := Build(ctx, cfg, opts...)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, c.Close()) })
		return c
	}

	dev := config.CodeMode{Enabled: true, Profile: "dev"}
	build(&config.Config{CodeMode: dev})
	assert.Equal(t, []spares{servingSpares}, asked, "a server's code mode keeps the defaults")

	asked = nil
	c := build(&config.Config{CodeMode: dev}, WithoutSpareSandboxes())
	_, err := c.NewCodeExecutor("")
	require.NoError(t, err)
	assert.Equal(t, []spares{{}}, asked, "one code mode, made by Build, with no spare")

	asked = nil
	c = build(&config.Config{}, WithoutSpareSandboxes())
	x, err := c.NewCodeExecutor("dev")
	require.NoError(t, err)
	res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: "return 6 * 7"})
	require.NoError(t, err)
	assert.JSONEq(t, "42", string(res.Value))
	assert.Equal(t, []spares{{}}, asked, "an executor outside a server makes none")
}

// TestProfileOfAConfigurationNamingNone shows the profile code mode runs
// under when the configuration names none and the runner is nowhere: dev,
// with a warning that says why; while a configured runner asks for
// standard, whose error stops the build. Where the runner is found,
// standard runs: TestExecDefaultProfile in cmd/metatools.
func TestProfileOfAConfigurationNamingNone(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := context.Background()
	profileOf := func(t *testing.T, cm config.CodeMode) (string, string) {
		var log strings.Builder
		c, err := Build(ctx, &config.Config{CodeMode: cm}, WithLogger(slog.New(slog.NewTextHandler(&log, nil))), WithoutSpareSandboxes())
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, c.Close()) })
		x, err := c.NewCodeExecutor("")
		require.NoError(t, err)
		res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: "return 1"})
		require.NoError(t, err)
		return res.Isolation.Profile, log.String()
	}

	profile, log := profileOf(t, config.CodeMode{Enabled: true})
	assert.Equal(t, "dev", profile)
	assert.Contains(t, log, "level=WARN")
	assert.Contains(t, log, "profile dev")
	assert.Contains(t, log, "toolruntime-runner is neither next to the metatools executable nor on the PATH", "the warning says why")

	profile, log = profileOf(t, config.CodeMode{Enabled: true, Profile: "dev"})
	assert.Equal(t, "dev", profile)
	assert.Empty(t, log, "a profile named is not warned of")

	missing := filepath.Join(t.TempDir(), "runner")
	_, err := Build(ctx, &config.Config{CodeMode: config.CodeMode{Enabled: true, Sandbox: config.Sandbox{Runner: missing}}},
		WithLogger(slog.New(slog.DiscardHandler)))
	require.Error(t, err, "a configured runner asks for standard: no falling back")
	assert.Contains(t, err.Error(), "codeMode.sandbox.runner: stat "+missing)
}

// warmingBackend is a backend of the catalogue whose sandboxes start
// ahead once the test releases them, and which records its Close.
type warmingBackend struct {
	toolruntime.Backend
	release chan struct{}
	limits  chan toolruntime.Limits
	closed  chan struct{}
}

func (b *warmingBackend) Warm(ctx context.Context, l toolruntime.Limits) error {
	b.limits <- l
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *warmingBackend) Close(context.Context) error {
	close(b.closed)
	return nil
}

// TestSandboxesReadyWithTheCatalogue shows that a catalogue is ready only
// once code mode's sandboxes started ahead are, with the limits its
// programs run under, so that the first program a server runs finds one;
// and that Close closes the backend.
func TestSandboxesReadyWithTheCatalogue(t *testing.T) {
	b := &warmingBackend{release: make(chan struct{}), limits: make(chan toolruntime.Limits, 1), closed: make(chan struct{})}
	original := newBackend
	newBackend = func(p toolruntime.SecurityProfile, sb config.Sandbox, sp spares) (toolruntime.Backend, error) {
		inner, err := original(p, sb, sp)
		b.Backend = inner
		return b, err
	}
	t.Cleanup(func() { newBackend = original })

	cfg := &config.Config{CodeMode: config.CodeMode{Enabled: true, Profile: "dev", Sandbox: config.Sandbox{Limits: toolruntime.Limits{Memory: 80 << 20}}}}
	c, err := Build(context.Background(), cfg, WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	assert.Equal(t, int64(80<<20), (<-b.limits).Memory, "the sandboxes warmed are those of the configured limits")
	select {
	case <-c.Ready():
		t.Fatal("the catalogue was ready before its sandboxes")
	default:
	}
	close(b.release)
	require.NoError(t, c.Wait(t.Context()))

	require.NoError(t, c.Close())
	select {
	case <-b.closed:
	default:
		t.Fatal("Close did not close the sandbox's backend")
	}
}

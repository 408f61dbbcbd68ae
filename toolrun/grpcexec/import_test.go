package grpcexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got, as indented JSON with the server's address
// replaced by ADDRESS, with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, addr string, got any) {
	t.Helper()
	raw, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	raw = append(bytes.ReplaceAll(raw, []byte(addr), []byte("ADDRESS")), '\n')
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create it")
	assert.Equal(t, string(want), string(raw))
}

func insecureSpec(addr string) grpcexec.ImportSpec {
	return grpcexec.ImportSpec{Address: addr, TLS: &toolmodel.GRPCTLS{Insecure: true}}
}

func TestImportGolden(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	tests := []struct {
		name string
		spec func(grpcexec.ImportSpec) grpcexec.ImportSpec
	}{
		{"import_default.golden.json", func(spec grpcexec.ImportSpec) grpcexec.ImportSpec {
			spec.Namespace = "test"
			spec.Metadata = map[string]string{"x-team": "blue"}
			spec.Timeout = toolmodel.Duration(5 * time.Second)
			return spec
		}},
		{"import_health.golden.json", func(spec grpcexec.ImportSpec) grpcexec.ImportSpec {
			spec.Services = []string{"grpc.health.v1.Health"}
			return spec
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result, err := e.Import(context.Background(), tt.spec(insecureSpec(s.Addr)))
			require.NoError(t, err)
			golden(t, tt.name, s.Addr, result)
		})
	}
}

func TestImportedToolsDescribeTheirCalls(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	result, err := e.Import(context.Background(), insecureSpec(s.Addr))
	require.NoError(t, err)
	tools := map[string]toolindex.Registration{}
	for _, reg := range result.Registrations {
		tools[reg.Tool.Name] = reg
	}
	validator := toolmodel.NewValidator()

	t.Run("arguments and result of Echo fit the schemas", func(t *testing.T) {
		reg := tools["echo_service_echo"]
		args := decode(t, `{"text":"hi","n64":"7","u64":8,"ratio":0.5,"data":"aGk=","color":"RED","tags":["a"],
			"counts":{"k":"1"},"by_id":{"3":{"key":"k"}},"inner":{"key":"k"},"inners":[{"key":"a"}],
			"at":"2024-01-02T03:04:05Z","wait":"2s","extra":{"x":1},"value":[1],"nickname":"n","big":"9",
			"name":"x","note":"n","tree":{"name":"a","children":[{"name":"b"}]},
			"detail":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1s"}}`)
		require.NoError(t, validator.ValidateInput(&reg.Tool, args))
		out, err := e.Execute(context.Background(), call(reg.Backend, args))
		require.NoError(t, err)
		require.NoError(t, validator.ValidateOutput(&reg.Tool, out.Structured))
		nan, err := e.Execute(context.Background(), call(reg.Backend, map[string]any{"ratio": "NaN", "color": 7.0}))
		require.NoError(t, err)
		require.NoError(t, validator.ValidateOutput(&reg.Tool, nan.Structured), "NaN and unknown enum numbers are valid results")
	})
	t.Run("bad arguments are refused by the input schema", func(t *testing.T) {
		reg := tools["echo_service_echo"]
		for _, args := range []string{`{"nope":1}`, `{"n32":"x"}`, `{"color":"BLUE"}`, `{"n64":"1.5"}`, `{"by_id":{"x":{}}}`, `{"wait":"soon"}`} {
			err := validator.ValidateInput(&reg.Tool, decode(t, args))
			assert.ErrorIs(t, err, errors.ErrValidation, "args %s", args)
		}
	})
	t.Run("streaming tools carry the schema of a message", func(t *testing.T) {
		reg := tools["echo_service_count"]
		assert.Nil(t, reg.Tool.OutputSchema)
		grpcMeta := reg.Tool.Metadata["grpc"].(map[string]any)
		assert.Equal(t, "server", grpcMeta["streaming"])
		out, err := e.Execute(context.Background(), call(reg.Backend, map[string]any{"n": 2.0}))
		require.NoError(t, err)
		for _, msg := range out.Structured.([]any) {
			require.NoError(t, validator.Validate(grpcMeta["messageSchema"], msg))
		}
	})
	t.Run("comments become descriptions", func(t *testing.T) {
		assert.True(t, strings.HasPrefix(tools["echo_service_echo"].Tool.Description, "Echo returns its request unchanged."))
		assert.Equal(t, "Calls the gRPC method /metatools.test.v1.EchoService/Fail.", tools["echo_service_fail"].Tool.Description)
	})
	t.Run("methods that cannot be tools are skipped", func(t *testing.T) {
		assert.Equal(t, []grpcexec.SkippedMethod{
			{Method: testservice.Method("SetName"), Reason: "its request google.protobuf.StringValue is not a JSON object, as tool arguments are"},
			{Method: testservice.Method("Upload"), Reason: "it streams its requests; only unary and server-streaming methods can be tools"},
			{Method: testservice.Method("Chat"), Reason: "it streams its requests; only unary and server-streaming methods can be tools"},
		}, result.Skipped)
	})
	t.Run("the import fills the descriptor cache", func(t *testing.T) {
		assert.Equal(t, int64(1), s.ReflectionCalls())
	})
}

func TestImportErrors(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	tests := []struct {
		name    string
		spec    grpcexec.ImportSpec
		code    errors.Code
		mention string
	}{
		{"no address", grpcexec.ImportSpec{}, errors.InvalidArgument, "address"},
		{"bad namespace", func() grpcexec.ImportSpec {
			spec := insecureSpec(s.Addr)
			spec.Namespace = "a b"
			return spec
		}(), errors.InvalidArgument, "namespace"},
		{"negative timeout", func() grpcexec.ImportSpec {
			spec := insecureSpec(s.Addr)
			spec.Timeout = -1
			return spec
		}(), errors.InvalidArgument, "negative"},
		{"unknown service", func() grpcexec.ImportSpec {
			spec := insecureSpec(s.Addr)
			spec.Services = []string{"no.Such"}
			return spec
		}(), errors.NotFound, "no.Such"},
		{"duplicate tool names", func() grpcexec.ImportSpec {
			spec := insecureSpec(s.Addr)
			spec.ToolName = func(string, string) string { return "same" }
			return spec
		}(), errors.Conflict, `tool "same"`},
		{"invalid tool name", func() grpcexec.ImportSpec {
			spec := insecureSpec(s.Addr)
			spec.ToolName = func(_, method string) string { return method + "!" }
			return spec
		}(), errors.InvalidArgument, `"Echo!"`},
		{"insecure towards a remote host", grpcexec.ImportSpec{Address: "example.com:443", TLS: &toolmodel.GRPCTLS{Insecure: true}},
			errors.InvalidArgument, "loopback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Import(context.Background(), tt.spec)
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err), "error: %v", err)
			require.ErrorContains(t, err, tt.mention)
			var te *errors.Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "grpcexec.Import", te.Op)
		})
	}
	t.Run("server without reflection", func(t *testing.T) {
		bare := testservice.Start(t, testservice.Options{Reflection: testservice.ReflectionNone})
		_, err := e.Import(context.Background(), insecureSpec(bare.Addr))
		require.Error(t, err)
		assert.Equal(t, errors.Unsupported, errors.CodeOf(err))
	})
}

func TestSourceFollowsTheServer(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	spec := insecureSpec(s.Addr)
	spec.Namespace = "test"
	src := e.Source(spec)
	assert.Equal(t, "grpc:"+s.Addr, src.Identity())

	idx := toolindex.New(toolindex.WithSource(src))
	require.NoError(t, idx.Refresh(context.Background()))
	page, err := idx.List(context.Background(), toolindex.ListRequest{Namespace: "test", Limit: toolindex.MaxPageSize})
	require.NoError(t, err)
	var ids []string
	for _, item := range page.Items {
		ids = append(ids, item.ID)
	}
	assert.Equal(t, []string{
		"test:echo_service_block", "test:echo_service_count", "test:echo_service_echo", "test:echo_service_echo_struct",
		"test:echo_service_fail", "test:echo_service_headers", "test:echo_service_now", "test:echo_service_status",
	}, ids)
}

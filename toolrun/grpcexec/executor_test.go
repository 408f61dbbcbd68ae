package grpcexec_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// decode parses a JSON object written in a test.
func decode(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	return v
}

// sampleDefaults is the result for an empty Sample: every field without
// presence at its default value.
func sampleDefaults() map[string]any {
	return map[string]any{
		"text": "", "n32": 0.0, "n64": "0", "u64": "0", "ratio": 0.0, "f": 0.0, "flag": false, "data": "",
		"color": "COLOR_UNSPECIFIED", "tags": []any{}, "counts": map[string]any{}, "inners": []any{}, "by_id": map[string]any{},
	}
}

func TestEchoConvertsArgumentsAndResults(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	tests := []struct {
		name string
		args string
		want string // the fields that differ from sampleDefaults
	}{
		{"no arguments", `{}`, `{}`},
		{
			"scalars",
			`{"text":"hi","n32":-5,"n64":"9007199254740993","u64":"18446744073709551615","ratio":0.5,"f":1.5,"flag":true,"data":"aGk=","color":"GREEN"}`,
			`{"text":"hi","n32":-5,"n64":"9007199254740993","u64":"18446744073709551615","ratio":0.5,"f":1.5,"flag":true,"data":"aGk=","color":"GREEN"}`,
		},
		{"int64 given as a number", `{"n64":42}`, `{"n64":"42"}`},
		{"enum given by number", `{"color":1}`, `{"color":"RED"}`},
		{"non-finite double", `{"ratio":"NaN"}`, `{"ratio":"NaN"}`},
		{"JSON field names accepted", `{"byId":{"7":{"key":"k"}}}`, `{"by_id":{"7":{"key":"k","values":[]}}}`},
		{"repeated and map", `{"tags":["a","b"],"counts":{"x":"3","y":4}}`, `{"tags":["a","b"],"counts":{"x":"3","y":"4"}}`},
		{
			"nested messages",
			`{"inner":{"key":"k","values":["v"]},"inners":[{"key":"a"}]}`,
			`{"inner":{"key":"k","values":["v"]},"inners":[{"key":"a","values":[]}]}`,
		},
		{
			"well-known types",
			`{"at":"2024-01-02T03:04:05Z","wait":"1.5s","extra":{"a":[1,"x",null]},"value":"v","nickname":"nick","big":12}`,
			`{"at":"2024-01-02T03:04:05Z","wait":"1.500s","extra":{"a":[1,"x",null]},"value":"v","nickname":"nick","big":"12"}`,
		},
		{"oneof member and optional field", `{"id":7,"note":""}`, `{"id":7,"note":""}`},
		{
			"recursive message",
			`{"tree":{"name":"root","children":[{"name":"leaf"}]}}`,
			`{"tree":{"name":"root","children":[{"name":"leaf","children":[]}]}}`,
		},
		{
			"any holding a well-known type",
			`{"detail":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"2s"}}`,
			`{"detail":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"2s"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.Execute(context.Background(), call(backend(s.Addr, "Echo"), decode(t, tt.args)))
			require.NoError(t, err)
			assert.False(t, out.IsError)
			want := sampleDefaults()
			maps.Copy(want, decode(t, tt.want))
			assert.Equal(t, want, out.Structured)
		})
	}
}

func TestArgumentsThatDoNotFitAreInvalid(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	tests := []struct {
		name, args, mention string
	}{
		{"unknown field", `{"nope":1}`, "nope"},
		{"wrong type", `{"text":5}`, "text"},
		{"two members of a oneof", `{"name":"a","id":1}`, "oneof"},
		{"int32 out of range", `{"n32":4294967296}`, "n32"},
		{"fraction for an integer", `{"n32":1.5}`, "n32"},
		{"unknown enum name", `{"color":"BLUE"}`, "BLUE"},
		{"malformed timestamp", `{"at":"yesterday"}`, "Timestamp"},
		{"malformed base64", `{"data":"!!"}`, "data"},
		{"any of an unknown type", `{"detail":{"@type":"type.googleapis.com/no.Such"}}`, "no.Such"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Execute(context.Background(), call(backend(s.Addr, "Echo"), decode(t, tt.args)))
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
			assert.ErrorContains(t, err, tt.mention)
		})
	}
	t.Run("arguments that are not JSON", func(t *testing.T) {
		_, err := e.Execute(context.Background(), call(backend(s.Addr, "Echo"), map[string]any{"text": make(chan int)}))
		require.Error(t, err)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	})
}

func TestNonObjectResult(t *testing.T) {
	s := start(t)
	out, err := newExecutor(t).Execute(context.Background(), call(backend(s.Addr, "Now"), nil))
	require.NoError(t, err)
	assert.Equal(t, testservice.Now.Format(time.RFC3339), out.Structured)
}

func TestServerStreaming(t *testing.T) {
	s := start(t)
	count := backend(s.Addr, "Count")
	replies := []any{
		map[string]any{"index": 0.0, "text": "pa"},
		map[string]any{"index": 1.0, "text": "pb"},
		map[string]any{"index": 2.0, "text": "pc"},
	}

	t.Run("gathered into an array", func(t *testing.T) {
		out, err := newExecutor(t).Execute(context.Background(), call(count, map[string]any{"n": 3.0, "prefix": "p"}))
		require.NoError(t, err)
		assert.Equal(t, replies, out.Structured)
	})
	t.Run("an empty stream is an empty array", func(t *testing.T) {
		out, err := newExecutor(t).Execute(context.Background(), call(count, map[string]any{"n": 0.0}))
		require.NoError(t, err)
		assert.Equal(t, []any{}, out.Structured)
	})
	t.Run("delivered as chunks", func(t *testing.T) {
		var chunks []any
		c := call(count, map[string]any{"n": 3.0, "prefix": "p"})
		c.OnChunk = func(v any) { chunks = append(chunks, v) }
		out, err := newExecutor(t).Execute(context.Background(), c)
		require.NoError(t, err)
		assert.Nil(t, out.Structured)
		assert.Equal(t, replies, chunks)
	})
	t.Run("too many messages to gather", func(t *testing.T) {
		_, err := newExecutor(t, grpcexec.WithMaxStreamMessages(2)).Execute(context.Background(), call(count, map[string]any{"n": 3.0}))
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.ErrorContains(t, err, "chunks")
	})
	t.Run("no bound on chunks", func(t *testing.T) {
		n := 0
		c := call(count, map[string]any{"n": 3.0})
		c.OnChunk = func(any) { n++ }
		_, err := newExecutor(t, grpcexec.WithMaxStreamMessages(2)).Execute(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
	})
	t.Run("a failing stream is a tool failure", func(t *testing.T) {
		out, err := newExecutor(t).Execute(context.Background(), call(count, map[string]any{"n": -1.0}))
		require.NoError(t, err)
		assert.True(t, out.IsError)
		assert.Equal(t, "INVALID_ARGUMENT: n must not be negative", toolrun.OutputText(out))
	})
}

func TestHealthService(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	healthBackend := func(method string) toolmodel.ToolBackend {
		b := grpcexec.Backend(s.Addr, "/grpc.health.v1.Health/"+method)
		b.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
		return b
	}

	t.Run("Check", func(t *testing.T) {
		out, err := e.Execute(context.Background(), call(healthBackend("Check"), nil))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"status": "SERVING"}, out.Structured)
	})
	t.Run("Check of an unknown service is a tool failure", func(t *testing.T) {
		out, err := e.Execute(context.Background(), call(healthBackend("Check"), map[string]any{"service": "nope"}))
		require.NoError(t, err)
		assert.True(t, out.IsError)
		assert.Equal(t, "NOT_FOUND", out.Structured.(map[string]any)["code"])
	})
	t.Run("Watch streams changes until canceled", func(t *testing.T) {
		s.Health.SetServingStatus("watched", healthpb.HealthCheckResponse_SERVING)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		chunks := make(chan any, 8)
		c := call(healthBackend("Watch"), map[string]any{"service": "watched"})
		c.OnChunk = func(v any) { chunks <- v }
		done := make(chan error, 1)
		go func() {
			_, err := e.Execute(ctx, c)
			done <- err
		}()
		next := func() any {
			select {
			case v := <-chunks:
				return v
			case err := <-done:
				require.FailNow(t, "the stream ended early", "error: %v", err)
				return nil
			}
		}
		assert.Equal(t, map[string]any{"status": "SERVING"}, next())
		s.Health.SetServingStatus("watched", healthpb.HealthCheckResponse_NOT_SERVING)
		assert.Equal(t, map[string]any{"status": "NOT_SERVING"}, next())
		cancel()
		err := <-done
		require.Error(t, err)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err))
	})
}

func TestDeadlines(t *testing.T) {
	s := start(t)
	e := newExecutor(t)

	t.Run("backend timeout", func(t *testing.T) {
		b := backend(s.Addr, "Block")
		b.GRPC.Timeout = toolmodel.Duration(20 * time.Millisecond)
		_, err := e.Execute(context.Background(), call(b, nil))
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
		assert.True(t, errors.IsRetryable(err))
	})
	t.Run("context already done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := e.Execute(ctx, call(backend(s.Addr, "Echo"), nil))
		require.Error(t, err)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err))
	})
	t.Run("deadline during a stream", func(t *testing.T) {
		s.Health.SetServingStatus("slow", healthpb.HealthCheckResponse_SERVING)
		b := grpcexec.Backend(s.Addr, "/grpc.health.v1.Health/Watch")
		b.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
		b.GRPC.Timeout = toolmodel.Duration(50 * time.Millisecond)
		_, err := e.Execute(context.Background(), call(b, map[string]any{"service": "slow"}))
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
	})
}

func TestMethodsThatCannotRun(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	tests := []struct {
		name    string
		backend toolmodel.ToolBackend
		code    errors.Code
		mention string
	}{
		{"client streaming", backend(s.Addr, "Upload"), errors.Unsupported, "streams its requests"},
		{"bidirectional streaming", backend(s.Addr, "Chat"), errors.Unsupported, "streams its requests"},
		{"unknown method", backend(s.Addr, "Nope"), errors.NotFound, `no method "Nope"`},
		{"unknown service", backendFor(s.Addr, "/no.Such/Method"), errors.NotFound, "no.Such"},
		{"not a gRPC backend", toolrun.LocalBackendFor("x"), errors.InvalidArgument, "not a gRPC backend"},
		{"malformed method", backendFor(s.Addr, "Echo"), errors.InvalidArgument, "/package.Service/Method"},
		{"negative timeout", func() toolmodel.ToolBackend {
			b := backend(s.Addr, "Echo")
			b.GRPC.Timeout = -1
			return b
		}(), errors.InvalidArgument, "negative"},
		{"reserved header", func() toolmodel.ToolBackend {
			b := backend(s.Addr, "Echo")
			b.GRPC.Metadata = map[string]string{"grpc-timeout": "1S"}
			return b
		}(), errors.InvalidArgument, "reserved"},
		{"header key with a space", func() toolmodel.ToolBackend {
			b := backend(s.Addr, "Echo")
			b.GRPC.Metadata = map[string]string{"a b": "c"}
			return b
		}(), errors.InvalidArgument, "a b"},
		{"header value with a newline", func() toolmodel.ToolBackend {
			b := backend(s.Addr, "Echo")
			b.GRPC.Metadata = map[string]string{"x": "a\nb"}
			return b
		}(), errors.InvalidArgument, "printable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Execute(context.Background(), call(tt.backend, nil))
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err), "error: %v", err)
			require.ErrorContains(t, err, tt.mention)
			var te *errors.Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, "grpcexec.Execute", te.Op)
			assert.Equal(t, tt.backend.Identity(), te.Backend)
		})
	}
}

func backendFor(addr, method string) toolmodel.ToolBackend {
	b := grpcexec.Backend(addr, method)
	b.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
	return b
}

func TestUnreachableServerIsUnavailable(t *testing.T) {
	s := start(t)
	addr := s.Addr
	s.Stop()
	_, err := newExecutor(t).Execute(context.Background(), call(backend(addr, "Echo"), nil))
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "error: %v", err)
	assert.True(t, errors.IsRetryable(err))
}

func TestServerWithoutReflectionIsUnsupported(t *testing.T) {
	s := testservice.Start(t, testservice.Options{Reflection: testservice.ReflectionNone})
	_, err := newExecutor(t).Execute(context.Background(), call(backend(s.Addr, "Echo"), nil))
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err), "error: %v", err)
	assert.ErrorContains(t, err, "reflection")
}

func TestReflectionV1AlphaOnly(t *testing.T) {
	s := testservice.Start(t, testservice.Options{Reflection: testservice.ReflectionV1Alpha})
	e := newExecutor(t)
	for range 2 {
		out, err := e.Execute(context.Background(), call(backend(s.Addr, "EchoStruct"), map[string]any{"a": "b"}))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"a": "b"}, out.Structured)
	}
	// The server counts the v1alpha stream only (it refuses v1 before any
	// interceptor); the cache served the second call.
	assert.Equal(t, int64(1), s.ReflectionCalls())
}

func TestReflectionVersionChangesWithTheServer(t *testing.T) {
	old := testservice.Start(t, testservice.Options{Reflection: testservice.ReflectionV1Alpha})
	e := newExecutor(t)
	_, err := e.Execute(context.Background(), call(backend(old.Addr, "Echo"), nil))
	require.NoError(t, err)
	old.Stop()
	updated := testservice.Start(t, testservice.Options{Address: old.Addr, Reflection: testservice.ReflectionV1, Version: 2})
	_, err = e.Execute(context.Background(), call(backend(updated.Addr, "Ping"), nil))
	require.NoError(t, err, "v1alpha is gone, v1 answers")
}

func TestDescriptorsAreResolvedOnce(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	for _, method := range []string{"Echo", "EchoStruct", "Count", "Echo"} {
		_, err := e.Execute(context.Background(), call(backend(s.Addr, method), nil))
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), s.ReflectionCalls())
}

func TestReconnectionRefreshesDescriptors(t *testing.T) {
	old := start(t)
	addr := old.Addr
	e := newExecutor(t)
	echo := backend(addr, "Echo")
	out, err := e.Execute(context.Background(), call(echo, nil))
	require.NoError(t, err)
	assert.NotContains(t, out.Structured, "added")

	// The server is redeployed at the same address with a new field and a
	// new method.
	old.Stop()
	updated := testservice.Start(t, testservice.Options{Address: addr, Version: 2})

	// A method the cached descriptors lack is looked up again at once.
	_, err = e.Execute(context.Background(), call(backend(addr, "Ping"), nil))
	require.NoError(t, err)
	// The new connection makes the cache stale: this call sees the new
	// field whether or not the one above had refreshed the cache.
	out, err = e.Execute(context.Background(), call(echo, nil))
	require.NoError(t, err)
	added, ok := out.Structured.(map[string]any)["added"]
	assert.True(t, ok, "the new field is in the result")
	assert.Empty(t, added)
	assert.Positive(t, updated.ReflectionCalls())
}

func TestMetadata(t *testing.T) {
	s := start(t)
	b := backend(s.Addr, "Headers")
	b.GRPC.Metadata = map[string]string{"X-Team": "blue", "x-region": "eu"}
	c := call(b, nil)
	c.Metadata = map[string]string{"Authorization": "Bearer t", "x-region": "us", "secret": "kept"}

	t.Run("backend metadata only by default", func(t *testing.T) {
		out, err := newExecutor(t).Execute(context.Background(), c)
		require.NoError(t, err)
		headers := out.Structured.(map[string]any)
		assert.Equal(t, "blue", headers["x-team"])
		assert.Equal(t, "eu", headers["x-region"])
		assert.NotContains(t, headers, "authorization")
		assert.NotContains(t, headers, "secret")
	})
	t.Run("the context's outgoing metadata is kept", func(t *testing.T) {
		ctx := metadata.AppendToOutgoingContext(context.Background(), "x-trace", "t1", "x-team", "red")
		out, err := newExecutor(t).Execute(ctx, c)
		require.NoError(t, err)
		headers := out.Structured.(map[string]any)
		assert.Equal(t, "t1", headers["x-trace"])
		assert.Equal(t, "blue", headers["x-team"], "the backend's metadata wins")
	})
	t.Run("forwarded call metadata overrides", func(t *testing.T) {
		out, err := newExecutor(t, grpcexec.WithForwardedMetadata("authorization", "X-Region")).Execute(context.Background(), c)
		require.NoError(t, err)
		headers := out.Structured.(map[string]any)
		assert.Equal(t, "blue", headers["x-team"])
		assert.Equal(t, "us", headers["x-region"])
		assert.Equal(t, "Bearer t", headers["authorization"])
		assert.NotContains(t, headers, "secret")
	})
}

func TestClose(t *testing.T) {
	s := start(t)
	e := grpcexec.New()
	_, err := e.Execute(context.Background(), call(backend(s.Addr, "Echo"), nil))
	require.NoError(t, err)
	require.NoError(t, e.Close())
	require.NoError(t, e.Close(), "a second Close is harmless")
	_, err = e.Execute(context.Background(), call(backend(s.Addr, "Echo"), nil))
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
	assert.False(t, errors.IsRetryable(err))
}

func TestToolErrorCodesOption(t *testing.T) {
	s := start(t)
	args := map[string]any{"code": float64(codes.NotFound), "message": "no user 5"}

	out, err := newExecutor(t).Execute(context.Background(), call(backend(s.Addr, "Status"), args))
	require.NoError(t, err, "NOT_FOUND is a tool failure by default")
	assert.True(t, out.IsError)

	_, err = newExecutor(t, grpcexec.WithToolErrorCodes()).Execute(context.Background(), call(backend(s.Addr, "Status"), args))
	require.Error(t, err, "without tool error codes, every status is an error")
	assert.Equal(t, errors.NotFound, errors.CodeOf(err))

	out, err = newExecutor(t, grpcexec.WithToolErrorCodes(codes.Unavailable)).Execute(context.Background(),
		call(backend(s.Addr, "Status"), map[string]any{"code": float64(codes.Unavailable), "message": "down"}))
	require.NoError(t, err)
	assert.True(t, out.IsError)
	assert.Equal(t, "UNAVAILABLE: down", toolrun.OutputText(out))
}

package gateway_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime/gateway"
)

var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"execute","params":{"language":"javascript","code":"1"}}`,
	`{"jsonrpc":"2.0","method":"log","params":{"line":"x"}}`,
	`{"jsonrpc":"2.0","id":2,"result":null}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"x","data":{"code":"timeout","meta":{"limit":"wall_time"}}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/run","params":{"id":"math:add","args":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"value":[1,"two",null]}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`[]`,
}

// encode writes m as the Writer does.
func encode(t *testing.T, m gateway.Message) []byte {
	var buf bytes.Buffer
	require.NoError(t, gateway.NewWriter(&buf).Write(m))
	return buf.Bytes()
}

// FuzzDecode checks that Decode never panics and that a message it accepts
// re-encodes to a line it accepts again as an equal message.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := gateway.Decode(line)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
			return
		}
		once := encode(t, m)
		again, err := gateway.Decode(once)
		require.NoError(t, err, "re-encoded %s", once)
		assert.Equal(t, string(once), string(encode(t, again)))
		assert.Equal(t, m.ID, again.ID)
		assert.Equal(t, m.Method, again.Method)
		assert.Equal(t, m.IsRequest(), again.IsRequest())
		assert.Equal(t, m.IsResponse(), again.IsResponse())
	})
}

// FuzzReader feeds arbitrary streams to a Reader with a small bound: it
// never panics, ends, and never returns a message longer than the bound.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s + "\n" + s + "\n"))
	}
	f.Add(bytes.Repeat([]byte("x"), 5000))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1024
		r := gateway.NewReader(bytes.NewReader(data), limit)
		for range len(data) + 1 {
			m, err := r.Read()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					code := errors.CodeOf(err)
					assert.Contains(t, []errors.Code{errors.InvalidArgument, errors.ResourceExhausted}, code, "error: %v", err)
				}
				return
			}
			assert.LessOrEqual(t, len(encode(t, m)), 2*limit+64, "a message past the bound")
		}
		t.Fatal("the reader did not end")
	})
}

// FuzzHost runs the host against a guest that writes arbitrary bytes: the
// host never panics and returns once the stream ends.
func FuzzHost(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s + "\n"))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","method":"log","params":{"line":"x"}}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"value":1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := gateway.Host(context.Background(), bytes.NewReader(data), io.Discard, gateway.Execution{Language: "javascript"}, &fakeTools{maxLog: 64}, 4096)
		if err != nil {
			assert.NotEqual(t, errors.Internal, errors.CodeOf(err), "error: %v", err)
		}
	})
}

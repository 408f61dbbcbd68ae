package grpcexec

import (
	"encoding/json"
	"testing"
)

// BenchmarkConvert measures the conversion of arguments to a request and
// of a message to its JSON result.
func BenchmarkConvert(b *testing.B) {
	sample, types := testTypes(b)
	var args map[string]any
	if err := json.Unmarshal([]byte(`{"text":"hello","n64":"42","color":"RED","tags":["a","b"],
		"inner":{"key":"k","values":["v"]},"at":"2024-01-02T03:04:05Z","counts":{"x":"1"}}`), &args); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		msg, err := newRequest(sample, args, types)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := toJSON(msg, types); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMessageSchema measures the derivation of a schema, which an
// import does twice per method.
func BenchmarkMessageSchema(b *testing.B) {
	sample, _ := testTypes(b)
	b.ReportAllocs()
	for b.Loop() {
		messageSchema(sample, inputMode)
	}
}

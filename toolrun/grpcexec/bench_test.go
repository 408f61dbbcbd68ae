package grpcexec_test

import (
	"context"
	"testing"
)

// BenchmarkExecute measures a call on a loopback server with warm
// descriptors: conversion of the arguments, the RPC, and conversion of
// the result.
func BenchmarkExecute(b *testing.B) {
	s := start(b)
	cases := []struct {
		name   string
		method string
		args   map[string]any
	}{
		{"unary_small", "EchoStruct", map[string]any{"text": "hello"}},
		{"unary_sample", "Echo", map[string]any{
			"text": "hello", "n64": "42", "color": "RED", "tags": []any{"a", "b"},
			"inner": map[string]any{"key": "k", "values": []any{"v"}}, "at": "2024-01-02T03:04:05Z",
		}},
		{"stream_10", "Count", map[string]any{"n": 10.0}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			e := newExecutor(b)
			c := call(backend(s.Addr, tc.method), tc.args)
			if _, err := e.Execute(context.Background(), c); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Execute(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

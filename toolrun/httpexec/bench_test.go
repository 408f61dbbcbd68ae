package httpexec_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// BenchmarkExecute measures the executor's own cost per call: building
// the request, authenticating, reading and decoding a small JSON
// response. The handler is called in memory, so no network time counts.
func BenchmarkExecute(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":7,"title":"Fix the build","labels":["bug","ci"],"state":"open"}`))
	})
	exec := httpexec.New(httpexec.WithHTTPClient(&http.Client{Transport: inMemory{handler}}),
		httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": "t"}))
	backend := &toolmodel.HTTPBackend{BaseURL: "https://api.example.com/v3", Method: "PATCH",
		Path: "/repos/{owner}/{repo}/issues/{number}", QueryParams: []string{"notify"},
		Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}}
	args := map[string]any{"owner": "octo", "repo": "hello world", "number": 7.0, "notify": true,
		"title": "Fix the build", "labels": []any{"bug", "ci"}}
	call := httpCall(backend, args)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := exec.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

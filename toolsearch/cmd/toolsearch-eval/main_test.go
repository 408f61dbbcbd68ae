package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var mcpReference = filepath.Join("..", "..", "testdata", "eval", "mcp-reference")

func TestJSONReport(t *testing.T) {
	for _, searcher := range []string{"bm25", "lexical", "fused", "feedback"} {
		t.Run(searcher, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-data", mcpReference, "-searcher", searcher, "-json"}, &stdout, &stderr)
			require.NoError(t, err, stderr.String())
			assert.Empty(t, stderr.String())

			var obj map[string]float64
			dec := json.NewDecoder(&stdout)
			require.NoError(t, dec.Decode(&obj))
			assert.False(t, dec.More(), "exactly one JSON object")
			assert.Equal(t, []string{"index_ms", "mrr", "ndcg@10", "p50_us", "p99_us", "queries", "recall@1", "recall@10", "recall@5", "tools"},
				slices.Sorted(maps.Keys(obj)))
			assert.InDelta(t, 45, obj["tools"], 0)
			assert.InDelta(t, 47, obj["queries"], 0)
			assert.Greater(t, obj["recall@5"], 0.5)
		})
	}
}

func TestTextReport(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-data", mcpReference, "-k", "3,1"}, &stdout, &stderr))
	out := stdout.String()
	for _, want := range []string{"45 tools, 47 queries", "searcher  bm25", "Recall@1 ", "Recall@3 ", "MRR ", "nDCG@10 ", "latency ", "index "} {
		assert.Contains(t, out, want)
	}
	assert.Less(t, strings.Index(out, "Recall@1 "), strings.Index(out, "Recall@3 "), "cut-offs in increasing order")
}

func TestSeveralSearchers(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-data", mcpReference, "-searcher", "all", "-json"}, &stdout, &stderr), stderr.String())
	var obj map[string]map[string]float64
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &obj))
	assert.Equal(t, []string{"bm25", "feedback", "fused", "lexical"}, slices.Sorted(maps.Keys(obj)))
	for name, report := range obj {
		assert.InDelta(t, 47, report["queries"], 0, name)
	}

	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"-data", mcpReference, "-searcher", "lexical,bm25"}, &stdout, &stderr))
	out := stdout.String()
	assert.Less(t, strings.Index(out, "searcher  lexical"), strings.Index(out, "searcher  bm25"), "in the order asked")
}

// TestLengthen checks that -lengthen evaluates a longer variant of the
// dataset, which changes the figures but not the queries.
func TestLengthen(t *testing.T) {
	donors := filepath.Join("..", "..", "testdata", "livemcp")
	evalJSON := func(args ...string) map[string]float64 {
		t.Helper()
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(context.Background(), append([]string{"-data", mcpReference, "-json"}, args...), &stdout, &stderr), stderr.String())
		var obj map[string]float64
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &obj))
		return obj
	}
	plain, long := evalJSON(), evalJSON("-lengthen", "32", "-donors", donors)
	assert.InDelta(t, plain["queries"], long["queries"], 0)
	assert.NotEqual(t, plain["ndcg@10"], long["ndcg@10"])
	assert.Equal(t, long, mergeTimes(long, evalJSON("-lengthen", "32", "-donors", donors, "-seed", "1")), "the default seed is 1")
}

// mergeTimes returns want with the timings of got, which vary from run
// to run.
func mergeTimes(got, want map[string]float64) map[string]float64 {
	out := maps.Clone(want)
	for _, k := range []string{"index_ms", "p50_us", "p99_us"} {
		out[k] = got[k]
	}
	return out
}

func TestDatasetWithoutQueries(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.jsonl"), []byte(
		`{"name": "ok", "description": "A tool.", "inputSchema": {"type": "object"}}
{"name": "not ok", "inputSchema": {"type": "object"}}
`), 0o600))
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-data", dir, "-json"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "skipped 1 invalid tools")
	assert.Contains(t, stderr.String(), "line 2")
	assert.Contains(t, stderr.String(), "only indexing figures")
	var obj map[string]float64
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &obj))
	assert.InDelta(t, 1, obj["tools"], 0)
	assert.InDelta(t, 0, obj["queries"], 0)
}

func TestBadArguments(t *testing.T) {
	tests := map[string][]string{
		"NoData":          {},
		"UnknownSearcher": {"-data", mcpReference, "-searcher", "vector"},
		"LengthenAlone":   {"-data", mcpReference, "-lengthen", "4"},
		"DonorsAlone":     {"-data", mcpReference, "-donors", mcpReference},
		"NoDonorParams":   {"-data", mcpReference, "-lengthen", "4", "-donors", filepath.Join("..", "..", "testdata", "eval", "metatool")},
		"BadCutoff":       {"-data", mcpReference, "-k", "0"},
		"MissingDataset":  {"-data", filepath.Join(t.TempDir(), "missing")},
		"UnknownFlag":     {"-nope"},
		"SemanticAlone":   {"-data", mcpReference, "-searcher", "semantic"},
		"EmbedURLAlone":   {"-data", mcpReference, "-embed-url", "http://127.0.0.1:1/v1"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Error(t, run(context.Background(), args, &stdout, &stderr))
			assert.Empty(t, stdout.String())
		})
	}
}

// TestSemanticSearcherUsesTheEmbeddingService runs the semantic searcher
// against an OpenAI-compatible service whose vectors are bags of hashed
// words, and checks that every tool and every query reached it and that
// "all" includes it.
func TestSemanticSearcherUsesTheEmbeddingService(t *testing.T) {
	var texts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if r.Header.Get("Authorization") != "Bearer secret" || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		texts.Add(int64(len(req.Input)))
		data := make([]map[string]any, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, 32)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				v[len(word)%len(v)]++
			}
			data[i] = map[string]any{"index": i, "embedding": v}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	t.Setenv("EVAL_EMBED_KEY", "secret")

	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-data", mcpReference, "-searcher", "all", "-json",
		"-embed-url", srv.URL + "/v1", "-embed-model", "words", "-embed-key-env", "EVAL_EMBED_KEY"}, &stdout, &stderr), stderr.String())
	var obj map[string]map[string]float64
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &obj))
	assert.Equal(t, []string{"bm25", "feedback", "fused", "lexical", "semantic"}, slices.Sorted(maps.Keys(obj)))
	assert.Equal(t, int64(obj["semantic"]["tools"]+obj["semantic"]["queries"]), texts.Load(), "each tool and each query embedded once")
	assert.Positive(t, obj["semantic"]["ndcg@10"])
}

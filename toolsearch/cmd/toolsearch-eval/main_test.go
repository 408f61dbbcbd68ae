package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var mcpReference = filepath.Join("..", "..", "testdata", "eval", "mcp-reference")

func TestJSONReport(t *testing.T) {
	for _, searcher := range []string{"bm25", "lexical"} {
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
		"BadCutoff":       {"-data", mcpReference, "-k", "0"},
		"MissingDataset":  {"-data", filepath.Join(t.TempDir(), "missing")},
		"UnknownFlag":     {"-nope"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Error(t, run(context.Background(), args, &stdout, &stderr))
			assert.Empty(t, stdout.String())
		})
	}
}

package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// writeDataset writes a dataset directory; queries is left out when empty.
func writeDataset(t *testing.T, tools, queries string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.jsonl"), []byte(tools), 0o600))
	if queries != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(queries), 0o600))
	}
	return dir
}

const tools = `{"name": "read_file", "namespace": "fs", "description": "Read a file.", "inputSchema": {"type": "object"}}
{"name": "bad name!", "description": "Invalid.", "inputSchema": {"type": "object"}}

{"name": "send_mail", "description": "Send an email message.", "inputSchema": {"type": "object"}}
not json
`

func TestLoad(t *testing.T) {
	dir := writeDataset(t, tools, `{"id": "q1", "query": "read a file", "relevant": {"fs:read_file": 2, "gone": 1}}`+"\n")
	ds, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, ds.Tools, 2)
	assert.Equal(t, "fs:read_file", ds.Tools[0].ID())
	assert.Equal(t, "send_mail", ds.Tools[1].ID())
	require.Len(t, ds.Skipped, 2)
	assert.Equal(t, 2, ds.Skipped[0].Line)
	require.ErrorIs(t, ds.Skipped[0].Err, errors.ErrInvalidArgument)
	assert.Equal(t, 5, ds.Skipped[1].Line)
	require.Len(t, ds.Queries, 1)
	assert.Equal(t, Query{ID: "q1", Text: "read a file", Relevant: map[string]int{"fs:read_file": 2, "gone": 1}}, ds.Queries[0])
	assert.Equal(t, []string{"gone"}, ds.UnknownReferences())
}

func TestLoadWithoutQueries(t *testing.T) {
	ds, err := Load(writeDataset(t, tools, ""))
	require.NoError(t, err)
	assert.Len(t, ds.Tools, 2)
	assert.Nil(t, ds.Queries)
}

func TestLoadErrors(t *testing.T) {
	tests := map[string]string{
		"MalformedQuery":  "{\n",
		"NoText":          `{"id": "q", "query": "", "relevant": {"send_mail": 1}}`,
		"NothingRelevant": `{"id": "q", "query": "mail", "relevant": {"send_mail": 0}}`,
	}
	for name, queries := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Load(writeDataset(t, tools, queries))
			assert.ErrorContains(t, err, "line 1")
		})
	}
	_, err := Load(t.TempDir())
	assert.ErrorIs(t, err, os.ErrNotExist, "tools.jsonl is required")
}

func TestRun(t *testing.T) {
	dir := writeDataset(t, tools, `{"id": "q1", "query": "read a file", "relevant": {"fs:read_file": 2}}
{"id": "q2", "query": "email", "relevant": {"send_mail": 2, "fs:read_file": 1}}
{"id": "q3", "query": "nothing matches this", "relevant": {"send_mail": 2}}
`)
	ds, err := Load(dir)
	require.NoError(t, err)
	r, err := Run(context.Background(), ds, toolindex.NewLexicalSearcher(), 2)
	require.NoError(t, err)

	assert.Equal(t, 2, r.Tools)
	assert.Equal(t, 3, r.Queries)
	// q1 finds read_file first; q2 finds only send_mail (1 of 2 relevant);
	// q3 finds nothing.
	assert.InDelta(t, (1+1+0)/3.0, r.Recall[1], 1e-9)
	assert.InDelta(t, (1+0.5+0)/3.0, r.Recall[2], 1e-9)
	assert.InDelta(t, (1+0.5+0)/3.0, r.Recall[10], 1e-9)
	assert.InDelta(t, (1+1+0)/3.0, r.MRR, 1e-9)
	assert.InDelta(t, (1+3/(3+1/1.584962500721156)+0)/3.0, r.NDCG10, 1e-9)
	assert.Positive(t, r.P50)
	assert.GreaterOrEqual(t, r.P99, r.P50)
	assert.Positive(t, r.Index)

	_, err = Run(context.Background(), ds, toolindex.NewLexicalSearcher(), MaxCutoff+1)
	assert.Error(t, err)
}

func TestReportJSON(t *testing.T) {
	raw, err := json.Marshal(Report{Tools: 3, Queries: 2, Recall: map[int]float64{1: 0.5, 5: 0.123456, 10: 1}, MRR: 0.75, NDCG10: 0.8, P50: 1500, P99: 2_000_000, Index: 12_345_678})
	require.NoError(t, err)
	assert.JSONEq(t, `{"tools": 3, "queries": 2, "recall@1": 0.5, "recall@5": 0.1235, "recall@10": 1,
		"mrr": 0.75, "ndcg@10": 0.8, "p50_us": 1.5, "p99_us": 2000, "index_ms": 12.346}`, string(raw))
}

func TestLengthen(t *testing.T) {
	ds, err := Load(writeDataset(t, tools, `{"id": "q1", "query": "read a file", "relevant": {"fs:read_file": 2}}`+"\n"))
	require.NoError(t, err)
	donors, err := Load(filepath.Join("..", "..", "testdata", "livemcp"))
	require.NoError(t, err)

	long, err := Lengthen(ds, donors.Tools, 12, 7)
	require.NoError(t, err)
	assert.Equal(t, ds.Queries, long.Queries)
	require.Len(t, long.Tools, len(ds.Tools))
	for i := range long.Tools {
		orig, got := ds.Tools[i], long.Tools[i]
		require.NoError(t, got.Validate())
		assert.Equal(t, orig.ID(), got.ID())
		assert.True(t, strings.HasPrefix(got.Description, orig.Description))
		assert.Equal(t, 12, strings.Count(got.Description, "\n- "), "one line per return field")
		raw, err := toolmodel.SchemaJSON(got.InputSchema)
		require.NoError(t, err)
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(raw, &schema))
		assert.GreaterOrEqual(t, len(schema.Properties), 8, "most drawn parameters are new")
		for name, p := range schema.Properties {
			assert.NotEmpty(t, p.Description, name)
		}
	}
	raw, err := toolmodel.SchemaJSON(ds.Tools[0].InputSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type": "object"}`, string(raw), "the input is not modified")

	again, err := Lengthen(ds, donors.Tools, 12, 7)
	require.NoError(t, err)
	assert.Equal(t, long.Tools[1].Description, again.Tools[1].Description, "deterministic")
	other, err := Lengthen(ds, donors.Tools, 12, 8)
	require.NoError(t, err)
	assert.NotEqual(t, long.Tools[1].Description, other.Tools[1].Description, "the seed matters")

	same, err := Lengthen(ds, donors.Tools, 0, 7)
	require.NoError(t, err)
	assert.Equal(t, ds.Tools, same.Tools)

	_, err = Lengthen(ds, ds.Tools, 3, 7)
	require.ErrorContains(t, err, "no parameter")
	_, err = Lengthen(ds, donors.Tools, -1, 7)
	require.Error(t, err)
}

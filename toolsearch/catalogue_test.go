package toolsearch_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// seedTools loads the tools of testdata/livemcp once.
var seedTools = sync.OnceValues(func() ([]toolmodel.Tool, error) {
	ds, err := eval.Load(filepath.Join("testdata", "livemcp"))
	if err != nil {
		return nil, err
	}
	return ds.Tools, nil
})

// syntheticCatalogue returns n tools derived from the real MCP tools of
// testdata/livemcp: the i-th is a variant of seed tool i mod len(seed),
// in a namespace of its own for every round through the seed after the
// first (so IDs are unique), whose description gains a few words taken
// from other tools' descriptions (so variants differ and the vocabulary
// is that of real tools). Every tool is varied alike, so that catalogues
// of any size have the same make-up. The result depends on n only.
func syntheticCatalogue(tb testing.TB, n int) []toolmodel.Tool {
	tb.Helper()
	seed, err := seedTools()
	require.NoError(tb, err)
	words := make([][]string, len(seed))
	for i := range seed {
		words[i] = strings.Fields(seed[i].Description)
	}
	out := make([]toolmodel.Tool, n)
	state := uint64(1)
	next := func(bound int) int { // a fixed linear congruential sequence
		state = state*6364136223846793005 + 1442695040888963407
		return int((state >> 33) % uint64(bound))
	}
	for i := range out {
		base := seed[i%len(seed)]
		t := base.Clone()
		if round := i / len(seed); round > 0 {
			ns := base.Namespace
			if ns == "" {
				ns = "tools"
			}
			t.Namespace = fmt.Sprintf("%s-%d", ns, round)
		}
		var extra []string
		for range 6 {
			donor := words[next(len(words))]
			if len(donor) > 0 {
				extra = append(extra, donor[next(len(donor))])
			}
		}
		t.Description += " " + strings.Join(extra, " ")
		out[i] = t
	}
	return out
}

func TestSyntheticCatalogue(t *testing.T) {
	seed, err := seedTools()
	require.NoError(t, err)
	tools := syntheticCatalogue(t, 3*len(seed))
	ids := map[string]bool{}
	for i := range tools {
		require.NoError(t, tools[i].Validate())
		ids[tools[i].ID()] = true
	}
	require.Len(t, ids, len(tools), "IDs are unique")
	require.Equal(t, seed[0].Name, tools[0].Name, "the first round keeps the seed's IDs")
	require.Equal(t, seed[0].Namespace, tools[0].Namespace)
	require.NotEqual(t, tools[len(seed)].Description, tools[2*len(seed)].Description, "copies differ")
	again := syntheticCatalogue(t, 3*len(seed))
	require.Equal(t, tools[2*len(seed)+5].Description, again[2*len(seed)+5].Description, "the catalogue is deterministic")
}

// evalCatalogue returns n tools built from the evaluation catalogues of
// testdata: the tools of mcp-reference and MetaTool first, then those of
// testdata/livemcp that have other IDs (livemcp holds some reference
// servers too), then synthetic variants of the livemcp tools
// (syntheticCatalogue's rounds after the first), so that a sized
// catalogue holds the real tools the labelled queries are about among
// many others. The result depends on n only.
func evalCatalogue(tb testing.TB, n int) []toolmodel.Tool {
	tb.Helper()
	var out []toolmodel.Tool
	for _, dir := range []string{filepath.Join("testdata", "eval", "mcp-reference"), filepath.Join("testdata", "eval", "metatool")} {
		ds, err := eval.Load(dir)
		require.NoError(tb, err)
		out = append(out, ds.Tools...)
	}
	seed, err := seedTools()
	require.NoError(tb, err)
	ids := make(map[string]bool, len(out))
	for i := range out {
		ids[out[i].ID()] = true
	}
	for i := range seed {
		if !ids[seed[i].ID()] {
			out = append(out, seed[i])
		}
	}
	if n <= len(out) {
		return out[:n]
	}
	return append(out, syntheticCatalogue(tb, n-len(out)+len(seed))[len(seed):]...)
}

// evalQueries returns the queries of mcp-reference and MetaTool,
// interleaved, so that a run of the first few holds both kinds.
func evalQueries(tb testing.TB) []string {
	tb.Helper()
	var sets [][]string
	for _, name := range []string{"mcp-reference", "metatool"} {
		ds, err := eval.Load(filepath.Join("testdata", "eval", name))
		require.NoError(tb, err)
		texts := make([]string, len(ds.Queries))
		for i, q := range ds.Queries {
			texts[i] = q.Text
		}
		sets = append(sets, texts)
	}
	var out []string
	for i := 0; i < max(len(sets[0]), len(sets[1])); i++ {
		for _, set := range sets {
			if i < len(set) {
				out = append(out, set[i])
			}
		}
	}
	return out
}

func TestEvalCatalogue(t *testing.T) {
	for _, n := range []int{500, 4000} {
		tools := evalCatalogue(t, n)
		require.Len(t, tools, n)
		ids := map[string]bool{}
		for i := range tools {
			require.NoError(t, tools[i].Validate())
			ids[tools[i].ID()] = true
		}
		require.Len(t, ids, n, "IDs are unique")
	}
	first, again := evalCatalogue(t, 4000), evalCatalogue(t, 4000)
	require.Equal(t, first[3999].Description, again[3999].Description, "the catalogue is deterministic")
	require.Len(t, evalQueries(t), 2047)
}

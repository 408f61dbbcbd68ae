// Package eval measures how well a toolindex.Searcher retrieves tools on a
// labelled dataset: it loads the dataset, registers its tools in a real
// toolindex index that searches with the Searcher, runs every query
// through the index and aggregates the metrics of package metrics.
//
// A dataset is a directory with tools.jsonl (one toolmodel.Tool JSON per
// line) and, when it is labelled, queries.jsonl (one Query JSON per line).
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch/internal/metrics"
)

// RankDepth is how deep MRR and nDCG look into a ranking.
const RankDepth = 10

// Query is one labelled query.
type Query struct {
	// ID names the query.
	ID string `json:"id"`
	// Text is the request, in natural language.
	Text string `json:"query"`
	// Relevant maps tool IDs to grades: 2 for the right tool, 1 for an
	// acceptable one.
	Relevant map[string]int `json:"relevant"`
}

// Skipped is a line of tools.jsonl that could not be used.
type Skipped struct {
	// Line is the 1-based line number.
	Line int
	// Err says why.
	Err error
}

// Dataset is a loaded dataset.
type Dataset struct {
	// Tools are the valid tools, in file order.
	Tools []toolmodel.Tool
	// Skipped lists the lines of tools.jsonl that were not valid tools.
	Skipped []Skipped
	// Queries are the labelled queries; nil when the dataset has none.
	Queries []Query
}

// Load reads the dataset in dir. tools.jsonl is required; queries.jsonl
// is optional. A tool line that does not decode to a valid tool is
// recorded in Skipped; a query line that is malformed, or has no text or
// no relevant tool, is an error, since it would distort every average.
func Load(dir string) (*Dataset, error) {
	ds := &Dataset{}
	err := readLines(filepath.Join(dir, "tools.jsonl"), func(n int, line []byte) error {
		t, err := toolmodel.DecodeTool(line)
		if err != nil {
			ds.Skipped = append(ds.Skipped, Skipped{Line: n, Err: err})
			return nil
		}
		ds.Tools = append(ds.Tools, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readLines(filepath.Join(dir, "queries.jsonl"), func(n int, line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if q.Text == "" || !hasRelevant(q.Relevant) {
			return fmt.Errorf("line %d: query %q needs a text and at least one relevant tool", n, q.ID)
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return ds, nil
}

func hasRelevant(grades map[string]int) bool {
	for _, g := range grades {
		if g >= 1 {
			return true
		}
	}
	return false
}

// readLines calls fn with each non-blank line of the file at path.
func readLines(path string, fn func(n int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// UnknownReferences returns the tool IDs that queries label as relevant
// but that are not among the dataset's tools (for example because their
// line was skipped), sorted.
func (d *Dataset) UnknownReferences() []string {
	known := make(map[string]bool, len(d.Tools))
	for i := range d.Tools {
		known[d.Tools[i].ID()] = true
	}
	var out []string
	for _, q := range d.Queries {
		for id := range q.Relevant {
			if !known[id] {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Report holds the figures of one evaluation. Metrics are averages over
// the queries; without queries they are 0.
type Report struct {
	Tools   int
	Queries int
	// Recall maps each cut-off k asked for (always 1, 5 and 10) to
	// Recall@k.
	Recall map[int]float64
	MRR    float64
	NDCG10 float64
	// P50 and P99 are percentiles of the latency of one search through
	// the index.
	P50, P99 time.Duration
	// Index is the time taken to register every tool.
	Index time.Duration
}

// MarshalJSON writes the report as one flat object with the keys tools,
// queries, recall@1, recall@5, recall@10, mrr, ndcg@10, p50_us, p99_us
// and index_ms.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Tools    int     `json:"tools"`
		Queries  int     `json:"queries"`
		Recall1  float64 `json:"recall@1"`
		Recall5  float64 `json:"recall@5"`
		Recall10 float64 `json:"recall@10"`
		MRR      float64 `json:"mrr"`
		NDCG10   float64 `json:"ndcg@10"`
		P50      float64 `json:"p50_us"`
		P99      float64 `json:"p99_us"`
		Index    float64 `json:"index_ms"`
	}{
		Tools: r.Tools, Queries: r.Queries,
		Recall1: round(r.Recall[1], 4), Recall5: round(r.Recall[5], 4), Recall10: round(r.Recall[10], 4),
		MRR: round(r.MRR, 4), NDCG10: round(r.NDCG10, 4),
		P50:   round(float64(r.P50)/float64(time.Microsecond), 1),
		P99:   round(float64(r.P99)/float64(time.Microsecond), 1),
		Index: round(float64(r.Index)/float64(time.Millisecond), 3),
	})
}

func round(v float64, digits int) float64 {
	scale := math.Pow10(digits)
	return math.Round(v*scale) / scale
}

// MaxCutoff is the deepest recall cut-off Run accepts: the largest page a
// toolindex search returns.
const MaxCutoff = toolindex.MaxPageSize

// Run registers the dataset's tools in a new toolindex index searching
// with s (each tool served by a local backend named after it), then runs
// every query through the index and returns the figures. cutoffs are the
// recall cut-offs to compute besides 1, 5 and 10, each in [1, MaxCutoff].
func Run(ctx context.Context, ds *Dataset, s toolindex.Searcher, cutoffs ...int) (Report, error) {
	ks := []int{1, 5, RankDepth}
	for _, k := range cutoffs {
		if k < 1 || k > MaxCutoff {
			return Report{}, fmt.Errorf("recall cut-off %d is out of [1, %d]", k, MaxCutoff)
		}
		ks = append(ks, k)
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	depth := ks[len(ks)-1]

	idx := toolindex.New(toolindex.WithSearcher(s))
	regs := make([]toolindex.Registration, len(ds.Tools))
	for i := range ds.Tools {
		regs[i] = toolindex.Registration{
			Tool: ds.Tools[i],
			Backend: toolmodel.ToolBackend{
				Kind:  toolmodel.BackendLocal,
				Local: &toolmodel.LocalBackend{Name: ds.Tools[i].ID()},
			},
		}
	}
	start := time.Now()
	if err := idx.RegisterMany(ctx, regs); err != nil {
		return Report{}, fmt.Errorf("register tools: %w", err)
	}
	r := Report{Tools: len(ds.Tools), Queries: len(ds.Queries), Index: time.Since(start), Recall: map[int]float64{}}
	for _, k := range ks {
		r.Recall[k] = 0
	}

	latencies := make([]time.Duration, 0, len(ds.Queries))
	for _, q := range ds.Queries {
		start := time.Now()
		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: q.Text, Limit: depth})
		latencies = append(latencies, time.Since(start))
		if err != nil {
			return Report{}, fmt.Errorf("query %q: %w", q.ID, err)
		}
		ranked := make([]string, len(page.Items))
		for i, item := range page.Items {
			ranked[i] = item.ID
		}
		for _, k := range ks {
			r.Recall[k] += metrics.Recall(ranked, q.Relevant, k)
		}
		r.MRR += metrics.ReciprocalRank(ranked, q.Relevant, RankDepth)
		r.NDCG10 += metrics.NDCG(ranked, q.Relevant, RankDepth)
	}
	if n := float64(len(ds.Queries)); n > 0 {
		for k := range r.Recall {
			r.Recall[k] /= n
		}
		r.MRR /= n
		r.NDCG10 /= n
	}
	r.P50 = metrics.Percentile(latencies, 50)
	r.P99 = metrics.Percentile(latencies, 99)
	return r, nil
}

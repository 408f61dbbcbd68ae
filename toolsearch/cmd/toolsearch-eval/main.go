// Command toolsearch-eval measures how well a search finds tools on a
// labelled dataset.
//
// Usage:
//
//	toolsearch-eval -data DIR [-searcher bm25|lexical] [-json] [-k 1,3,5,10,20]
//
// DIR holds tools.jsonl (one tool per line, as toolmodel.Tool JSON) and
// queries.jsonl (one {"id", "query", "relevant": {tool ID: grade}} per
// line). The tools are registered in a toolindex index that searches with
// the chosen searcher ("bm25": toolsearch's BM25 on bleve, the default;
// "lexical": toolindex's built-in searcher), every query is run through
// the index, and the command prints Recall@k, MRR, nDCG@10, the median and
// 99th percentile latency of one query, and the time taken to index the
// tools. With -json it prints one JSON object with the keys tools,
// queries, recall@1, recall@5, recall@10, mrr, ndcg@10, p50_us, p99_us and
// index_ms.
//
// Tool lines that are not valid tools are skipped and reported on stderr.
// A dataset without queries.jsonl yields the indexing figures only.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolsearch"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolsearch-eval:", err)
		os.Exit(1)
	}
}

// run is the command, with its arguments and output streams.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("toolsearch-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "dataset `directory` holding tools.jsonl and queries.jsonl (required)")
	kind := fs.String("searcher", "bm25", "searcher to evaluate: bm25 or lexical")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a text report")
	cutoffs := fs.String("k", "1,5,10", "comma-separated recall cut-offs of the text report (the JSON object always has 1, 5 and 10)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("-data DIR is required and there are no positional arguments")
	}
	ks, err := parseCutoffs(*cutoffs)
	if err != nil {
		return err
	}

	ds, err := eval.Load(*data)
	if err != nil {
		return fmt.Errorf("load dataset: %w", err)
	}
	reportProblems(ds, stderr)
	s, err := newSearcher(*kind)
	if err != nil {
		return err
	}
	if c, ok := s.(io.Closer); ok {
		defer c.Close()
	}
	report, err := eval.Run(ctx, ds, s, ks...)
	if err != nil {
		return err
	}
	if ds.Queries == nil {
		fmt.Fprintf(stderr, "%s has no queries.jsonl: only indexing figures are reported\n", *data)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(report)
	}
	printReport(stdout, *data, *kind, report, ks)
	return nil
}

// parseCutoffs parses a comma-separated list of recall cut-offs.
func parseCutoffs(s string) ([]int, error) {
	var ks []int
	for field := range strings.SplitSeq(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || k < 1 || k > eval.MaxCutoff {
			return nil, fmt.Errorf("-k: %q is not a cut-off in [1, %d]", field, eval.MaxCutoff)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

func newSearcher(kind string) (toolindex.Searcher, error) {
	switch kind {
	case "bm25":
		return toolsearch.New()
	case "lexical":
		return toolindex.NewLexicalSearcher(), nil
	}
	return nil, fmt.Errorf("-searcher: unknown searcher %q (want bm25 or lexical)", kind)
}

// reportProblems tells on stderr which tools were skipped and why, and
// which labelled tools are missing from the catalogue: both lower the
// figures.
func reportProblems(ds *eval.Dataset, stderr io.Writer) {
	if len(ds.Skipped) > 0 {
		fmt.Fprintf(stderr, "skipped %d invalid tools of tools.jsonl:\n", len(ds.Skipped))
		for _, sk := range ds.Skipped {
			fmt.Fprintf(stderr, "  line %d: %v\n", sk.Line, sk.Err)
		}
	}
	if unknown := ds.UnknownReferences(); len(unknown) > 0 {
		fmt.Fprintf(stderr, "%d tools labelled in queries.jsonl are not in the catalogue: %s\n", len(unknown), strings.Join(unknown, ", "))
	}
}

func printReport(w io.Writer, data, kind string, r eval.Report, cutoffs []int) {
	fmt.Fprintf(w, "dataset   %s (%d tools, %d queries)\n", data, r.Tools, r.Queries)
	fmt.Fprintf(w, "searcher  %s\n", kind)
	ks := slices.Clone(cutoffs)
	slices.Sort(ks)
	for _, k := range slices.Compact(ks) {
		fmt.Fprintf(w, "Recall@%-3d %.4f\n", k, r.Recall[k])
	}
	fmt.Fprintf(w, "MRR        %.4f\n", r.MRR)
	fmt.Fprintf(w, "nDCG@10    %.4f\n", r.NDCG10)
	fmt.Fprintf(w, "latency    p50 %v, p99 %v (one query)\n", r.P50, r.P99)
	fmt.Fprintf(w, "index      %v (%d tools)\n", r.Index, r.Tools)
}

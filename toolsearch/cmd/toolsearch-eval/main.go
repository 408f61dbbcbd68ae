// Command toolsearch-eval measures how well a search finds tools on a
// labelled dataset.
//
// Usage:
//
//	toolsearch-eval -data DIR [-searcher bm25|lexical|fused|feedback|semantic|all|LIST] [-json] [-k 1,3,5,10,20]
//	                [-lengthen N -donors DIR2 [-seed S]] [-embed-url URL -embed-model M [-embed-key-env NAME]]
//
// DIR holds tools.jsonl (one tool per line, as toolmodel.Tool JSON) and
// queries.jsonl (one {"id", "query", "relevant": {tool ID: grade}} per
// line). The tools are registered in a toolindex index that searches with
// the chosen searcher ("bm25": toolsearch's BM25F on bleve, the default;
// "lexical": toolindex's built-in searcher; "fused": toolsearch with
// WithFusion, the reciprocal-rank fusion of the two; "feedback": bm25
// with WithFeedback(DefaultFeedback()), RM3 query expansion; "semantic": the
// fused searcher with an embedding service too (WithEmbedder: an
// OpenAI-compatible endpoint at -embed-url, serving -embed-model, with
// the API key in the environment variable -embed-key-env names); "all":
// each of them, semantic only when -embed-url is set; or a
// comma-separated list), every query is run through the index,
// and the command prints Recall@k, MRR, nDCG@10, the median and 99th
// percentile latency of one query, and the time taken to index the tools,
// for each searcher. With -json and one searcher it prints one JSON object
// with the keys tools, queries, recall@1, recall@5, recall@10, mrr,
// ndcg@10, p50_us, p99_us and index_ms; with several, one JSON object
// mapping each searcher's name to such an object.
//
// -lengthen N evaluates a long, parameter-heavy variant of the dataset
// instead: each tool gains N documented parameters and N documented
// return fields taken from the tools of the dataset in -donors (for
// example the livemcp tools), chosen by a pseudo-random sequence started
// from -seed, so that the variant is the same on every run.
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
	kinds := fs.String("searcher", "bm25", "searchers to evaluate: bm25, lexical, fused, feedback, semantic, all, or a comma-separated list")
	lengthen := fs.Int("lengthen", 0, "add `N` documented parameters and return fields to every tool (needs -donors)")
	donorsDir := fs.String("donors", "", "dataset `directory` whose tools' parameters -lengthen draws from")
	seed := fs.Uint64("seed", 1, "seed of the choice of the parameters -lengthen adds")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a text report")
	cutoffs := fs.String("k", "1,5,10", "comma-separated recall cut-offs of the text report (the JSON object always has 1, 5 and 10)")
	var embedder toolsearch.OpenAIEmbedder
	fs.StringVar(&embedder.BaseURL, "embed-url", "", "`URL` of an OpenAI-compatible embeddings API, up to its version (http://localhost:11434/v1)")
	fs.StringVar(&embedder.Model, "embed-model", "", "embedding `model` of -embed-url")
	keyEnv := fs.String("embed-key-env", "", "environment `variable` holding the API key of -embed-url")
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
	if (embedder.BaseURL == "") != (embedder.Model == "") {
		return fmt.Errorf("-embed-url and -embed-model go together")
	}
	if *keyEnv != "" {
		embedder.APIKey = os.Getenv(*keyEnv)
	}
	names, err := parseSearchers(*kinds, embedder.BaseURL != "")
	if err != nil {
		return err
	}
	if *lengthen < 0 || (*lengthen > 0) != (*donorsDir != "") {
		return fmt.Errorf("-lengthen N (N >= 0) and -donors DIR go together")
	}

	ds, err := eval.Load(*data)
	if err != nil {
		return fmt.Errorf("load dataset: %w", err)
	}
	reportProblems(ds, stderr)
	if *lengthen > 0 {
		donors, err := eval.Load(*donorsDir)
		if err != nil {
			return fmt.Errorf("load donors: %w", err)
		}
		if ds, err = eval.Lengthen(ds, donors.Tools, *lengthen, *seed); err != nil {
			return fmt.Errorf("lengthen: %w", err)
		}
	}
	reports := make(map[string]eval.Report, len(names))
	for _, name := range names {
		if reports[name], err = evaluate(ctx, ds, name, &embedder, ks); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if ds.Queries == nil {
		fmt.Fprintf(stderr, "%s has no queries.jsonl: only indexing figures are reported\n", *data)
	}
	if *asJSON {
		if len(names) == 1 {
			return json.NewEncoder(stdout).Encode(reports[names[0]])
		}
		return json.NewEncoder(stdout).Encode(reports)
	}
	for i, name := range names {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printReport(stdout, *data, name, reports[name], ks)
	}
	return nil
}

// evaluate runs the evaluation of the searcher called name on ds.
func evaluate(ctx context.Context, ds *eval.Dataset, name string, embedder toolsearch.Embedder, ks []int) (eval.Report, error) {
	s, err := newSearcher(name, embedder)
	if err != nil {
		return eval.Report{}, err
	}
	if c, ok := s.(io.Closer); ok {
		defer c.Close()
	}
	return eval.Run(ctx, ds, s, ks...)
}

// searcherNames are the searchers the command knows, in the order "all"
// runs them.
var searcherNames = []string{"bm25", "lexical", "fused", "feedback", "semantic"}

// parseSearchers parses the -searcher list; the semantic searcher needs
// an embedding service.
func parseSearchers(s string, embedding bool) ([]string, error) {
	if s == "all" {
		if !embedding {
			return slices.DeleteFunc(slices.Clone(searcherNames), func(n string) bool { return n == "semantic" }), nil
		}
		return searcherNames, nil
	}
	var names []string
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(searcherNames, name) {
			return nil, fmt.Errorf("-searcher: unknown searcher %q (want %s or all)", name, strings.Join(searcherNames, ", "))
		}
		if name == "semantic" && !embedding {
			return nil, fmt.Errorf("-searcher: semantic needs -embed-url and -embed-model")
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
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

func newSearcher(kind string, embedder toolsearch.Embedder) (toolindex.Searcher, error) {
	switch kind {
	case "bm25":
		return toolsearch.New()
	case "lexical":
		return toolindex.NewLexicalSearcher(), nil
	case "fused":
		return toolsearch.New(toolsearch.WithFusion(true))
	case "feedback":
		return toolsearch.New(toolsearch.WithFeedback(toolsearch.DefaultFeedback()))
	case "semantic":
		return toolsearch.New(toolsearch.WithFusion(true), toolsearch.WithEmbedder(embedder))
	}
	return nil, fmt.Errorf("-searcher: unknown searcher %q (want %s)", kind, strings.Join(searcherNames, ", "))
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

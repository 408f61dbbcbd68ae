// Package toolsearch is a [toolindex.Searcher] that ranks tools with BM25F
// on a bleve index (github.com/blevesearch/bleve/v2), in memory or on disk.
//
// A [Searcher] indexes each tool as a document with one field per part of
// its definition: name, namespace, tags, title, description (its first
// paragraph, and the rest as details), and the names and descriptions of
// its parameters (the properties of its input schema). A query is matched against every field, each with its weight
// ([Weights]; a word in the name counts most), and scored with BM25F: a
// frequent word counts less than a rare one, a word in a long field less
// than the same word in a short one (each field against its own average
// length), and a word's counts in all fields are added up before they
// saturate, so that long parameter documentation cannot outweigh a tool's
// name and description. A tool's score is scaled by the share of the
// query's words its name, title, tags, namespace and first paragraph
// hold, and toolindex's lexical searcher's scores are blended in with a
// small weight ([WithLexicalBlend]). Two words of a query count once more
// when a tool's name holds both, or its first paragraph holds them near
// each other ([Weights] LeadPairs): words that belong together in the
// sentence saying what a tool does are rarely there by chance.
//
// A query that is a tool's ID or name, or "select:NAME,NAME2", ranks the
// named tools first. [WithFusion] adds a second ranking, that of
// toolindex's lexical searcher, and [WithEmbedder] a semantic one, from
// the vectors of an embedding model ([OpenAIEmbedder]), merged by
// reciprocal-rank fusion.
//
// Text is analysed for identifiers: "createIssue", "create_issue",
// "create-issue" and "github.createIssue" all contain the words "create"
// and "issue", so a request in plain English finds a tool whatever its
// naming style, and an identifier typed as one word ("github") still finds
// one written with humps ("GitHub"). Words are lower-cased and stemmed
// ("issues" finds "issue"), and English stop words are ignored. A query is
// always plain text: characters that bleve's query language treats as
// operators (+, -, :, ", *) are separators, never syntax.
//
// Use it through a toolindex index:
//
//	s, err := toolsearch.New()
//	if err != nil { ... }
//	defer s.Close()
//	idx := toolindex.New(toolindex.WithSearcher(s))
//	err = idx.RegisterMany(ctx, regs)
//	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "open a new issue"})
//
// The index calls Upsert and Remove as tools come and go; each call is one
// bleve batch, and a tool whose searched text did not change is skipped.
//
// For large catalogues, [WithPath] keeps the index on disk, where it
// survives restarts and opens without re-indexing; see [Searcher] for how
// it stays in line with the catalogue.
//
// The command toolsearch-eval (in cmd/toolsearch-eval) measures the
// retrieval quality of this searcher (with or without fusion), or of
// toolindex's built-in one, on a labelled dataset or on a long,
// parameter-heavy variant of it: Recall@k, MRR, nDCG@10 and latency.
//
// # Cost
//
// A query's postings are read from bleve's segments once and kept,
// decoded, with the segment, so that later queries asking for the same
// words look them up in a map; a change to the index adds a segment and
// leaves the others' caches valid. What remains per query is linear in
// the number of postings of its words (the tools that share a word with
// it), on top of a fixed part: analysing the query, the lexical blend's
// search, one map lookup per term and segment. The package's README
// gives a cost model per stage with figures; [Searcher] sums it up.
//
// # Tuning
//
// The default weights were measured on short catalogues (MCP reference
// servers, MetaTool) and on variants of them with tens of documented
// parameters and return fields per tool. To change them, start from
// [DefaultWeights] and measure the effect with toolsearch-eval on queries
// of your own.
package toolsearch

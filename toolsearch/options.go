package toolsearch

import (
	"cmp"
	"fmt"
	"math"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Weights are the boosts of the fields a query is matched against. A
// word's length-normalised count in a field is multiplied by the field's
// weight before the fields' counts are added up and saturated (BM25F); a
// weight of 0 leaves the field out of the search. The defaults
// ([DefaultWeights]) rank a word in a tool's name above the same word in
// its title or tags, and those above the description, and keep the
// parameters' names and descriptions, which are long and say much in
// passing, from outweighing them.
type Weights struct {
	// Name weighs the tool's name ("create_issue").
	Name float64
	// Namespace weighs the tool's namespace ("github").
	Namespace float64
	// Tags weighs the tool's tags.
	Tags float64
	// Title weighs the tool's display title and its annotations' title.
	Title float64
	// Description weighs the first paragraph of the tool's
	// description, which says what the tool does.
	Description float64
	// Details weighs the rest of the description: what it says after
	// its first blank line or once a list starts (return fields,
	// notes, examples).
	Details float64
	// ParamNames weighs the property names of the tool's input schema
	// (and of the objects those hold).
	ParamNames float64
	// ParamDescriptions weighs the descriptions of those properties.
	ParamDescriptions float64
	// LeadPairs weighs the pairs of words at most 4 apart (stop words
	// not counted) in the first paragraph of the description, against
	// 1 for the pairs of words of the name: a pair of query words both
	// found there counts once more (see the package documentation).
	// With 0 they are neither formed nor searched. They are kept in
	// memory, not indexed: a reopened on-disk index learns them from the
	// upserts that follow.
	LeadPairs float64
}

// DefaultWeights returns the weights a [Searcher] uses unless told
// otherwise with [WithWeights].
func DefaultWeights() Weights {
	return Weights{
		Name:              5,
		Namespace:         2,
		Tags:              3,
		Title:             3,
		Description:       1,
		Details:           0.2,
		ParamNames:        0.2,
		ParamDescriptions: 0.05,
		LeadPairs:         0.5,
	}
}

// all returns every field with its weight, in a fixed order.
func (w Weights) all() []weightedField {
	return []weightedField{
		{name: nameField, weight: w.Name},
		{name: namespaceField, weight: w.Namespace},
		{name: tagsField, weight: w.Tags},
		{name: titleField, weight: w.Title},
		{name: descriptionField, weight: w.Description},
		{name: detailsField, weight: w.Details},
		{name: paramNamesField, weight: w.ParamNames},
		{name: paramDescriptionField, weight: w.ParamDescriptions},
	}
}

// fields returns the fields to search: those of positive weight.
func (w Weights) fields() []weightedField {
	var out []weightedField
	for _, f := range w.all() {
		if f.weight > 0 {
			out = append(out, f)
		}
	}
	return out
}

// validate reports weights that are negative or not finite, or all the
// weights of words zero.
func (w Weights) validate() error {
	positive := false
	for _, f := range append(w.all(), weightedField{name: leadPairsField, weight: w.LeadPairs}) {
		if f.weight < 0 || math.IsNaN(f.weight) || math.IsInf(f.weight, 0) {
			return fmt.Errorf("weight of %s is %v: weights must be finite and >= 0", f.name, f.weight)
		}
		positive = positive || f.weight > 0 && f.name != leadPairsField
	}
	if !positive {
		return fmt.Errorf("every weight is 0: at least one field must be searched")
	}
	return nil
}

// Option configures a [Searcher].
type Option func(*config)

type config struct {
	path    string
	weights Weights
	// lengthNorm is the BM25 b of the fields it names; the others have
	// defaultB.
	lengthNorm map[string]float64
	// coverage says how a tool's score is scaled by how much of the
	// query it holds.
	coverage coverageMode
	// k1 bounds what the repetitions of a term add to a score.
	k1 float64
	// fusion fuses the BM25F ranking with toolindex's lexical one.
	fusion bool
	// blend is the weight of the lexical searcher's scores added to
	// the BM25F ones (see blend); 0 leaves them out.
	blend float64
	// fusionWeight is the weight of the BM25F ranking in the fusion,
	// the lexical one's being 1.
	fusionWeight float64
	// stem stems words in the analysis chain.
	stem bool
	// embedder adds a semantic ranking to the fusion.
	embedder Embedder
	// feedback expands queries with the words of their first hits.
	feedback Feedback
	// query says how a query's words become weighted terms.
	query queryConfig
	// wholeDescription leaves descriptions unsplit: the description
	// field holds all of it.
	wholeDescription bool
	// stemmer names bleve's stemming token filter, when stem is on;
	// "" is Snowball's English stemmer.
	stemmer string
}

// coverageMode says how a tool's score is scaled by how much of the query
// it holds.
type coverageMode int

const (
	// coverageNone leaves scores as they are.
	coverageNone coverageMode = iota
	// coverageTerms scales by the fraction of the query's terms (those
	// found in the index) the tool holds.
	coverageTerms
	// coverageIDF scales by the share of the query terms' idf the
	// tool's terms carry: missing a rare word costs more than missing
	// a common one.
	coverageIDF
)

// defaultB is BM25's usual length normalisation.
const defaultB = 0.75

func defaultConfig() config {
	return config{
		weights: DefaultWeights(), coverage: coverageNone, k1: 1.2, fusionWeight: 1, stem: true,
		blend: DefaultLexicalBlend,
		query: queryConfig{agentScale: 0.5, pairWeight: 0.5, leadPairSpan: 4, coreCoverage: 0.3},
	}
}

// stemmerName returns the name of the stemming token filter, "" for
// none.
func (c *config) stemmerName() string {
	if !c.stem {
		return ""
	}
	return cmp.Or(c.stemmer, en.SnowballStemmerName)
}

// fields returns the fields to search with their weights and b.
func (c *config) fields() []weightedField {
	fs := c.weights.fields()
	for i := range fs {
		fs[i].b = defaultB
		fs[i].slot = fieldSlot(textFieldIndex(fs[i].name))
		if b, ok := c.lengthNorm[fs[i].name]; ok {
			fs[i].b = b
		}
	}
	return fs
}

// WithPath keeps the index on disk in the directory dir instead of in
// memory. A directory that does not exist (or is empty) gets a new index;
// one that holds an index written by this package is reopened with its
// documents. See [Searcher] for how the disk and the catalogue stay in
// sync.
func WithPath(dir string) Option {
	return func(c *config) { c.path = dir }
}

// WithFusion says whether queries rank tools by reciprocal-rank fusion
// of two rankings: this searcher's BM25F ranking and that of toolindex's
// [toolindex.LexicalSearcher], which the Searcher then keeps in memory
// beside the bleve index. The two weigh a tool's fields and normalise
// their lengths differently (the lexical searcher scores a tool as one
// bag of words, and leaves out parameter descriptions), so a tool both
// rank well comes first. It costs a second index in memory, a lexical
// search per query and deeper BM25F rankings (at least the first 50).
//
// An on-disk index keeps only the BM25F side on disk: the lexical side
// holds the tools upserted since the Searcher was opened, so upsert the
// whole catalogue after opening one, as [Searcher] advises anyway.
func WithFusion(on bool) Option {
	return func(c *config) { c.fusion = on }
}

// DefaultLexicalBlend is the weight of the lexical searcher's scores in
// a default Searcher's ranking; see [WithLexicalBlend].
const DefaultLexicalBlend = 0.15

// WithLexicalBlend sets the weight of toolindex's
// [toolindex.LexicalSearcher] in the ranking: the Searcher keeps one in
// memory beside the bleve index, and a tool's score is its BM25F score
// divided by the best one, plus weight times the same ratio of its
// lexical score. The BM25F ranking is read as deep as the lexical scores
// could lift a tool into the page asked for (30 hits at most beyond
// it), the lexical one 30 hits deep. The lexical
// searcher scores a tool as one bag of words, folds plurals rather than
// stemming, and scales a score by the share of the query's words the tool
// holds; with a small weight it settles what BM25F ranks nearly alike. 0
// turns the blend off, saving the second index and the lexical search of
// each query. The default is [DefaultLexicalBlend]. As with
// [WithFusion], the lexical side of an on-disk index holds the tools
// upserted since the Searcher was opened. A weight that is negative or
// not finite is refused by [New].
func WithLexicalBlend(weight float64) Option {
	return func(c *config) { c.blend = weight }
}

// WithWeights sets the field weights; see [Weights].
func WithWeights(w Weights) Option {
	return func(c *config) { c.weights = w }
}

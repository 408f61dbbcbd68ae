package toolsearch

import (
	"fmt"
	"math"
)

// Weights are the boosts of the fields a query is matched against. A
// field's BM25 score is multiplied by its weight; a weight of 0 leaves the
// field out of the search. The defaults ([DefaultWeights]) rank a word in
// a tool's name above the same word in its title or tags, and those above
// the description and parameters, which are long and say more in passing.
type Weights struct {
	// Name weighs the tool's name ("create_issue").
	Name float64
	// Namespace weighs the tool's namespace ("github").
	Namespace float64
	// Tags weighs the tool's tags.
	Tags float64
	// Title weighs the tool's display title and its annotations' title.
	Title float64
	// Description weighs the tool's description.
	Description float64
	// ParamNames weighs the property names of the tool's input schema
	// (and of the objects those hold).
	ParamNames float64
	// ParamDescriptions weighs the descriptions of those properties.
	ParamDescriptions float64
}

// DefaultWeights returns the weights a [Searcher] uses unless told
// otherwise with [WithWeights].
func DefaultWeights() Weights {
	return Weights{
		Name:              2,
		Namespace:         1,
		Tags:              2,
		Title:             2,
		Description:       1,
		ParamNames:        0.5,
		ParamDescriptions: 0.25,
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

// validate reports weights that are negative or not finite, or all zero.
func (w Weights) validate() error {
	positive := false
	for _, f := range w.all() {
		if f.weight < 0 || math.IsNaN(f.weight) || math.IsInf(f.weight, 0) {
			return fmt.Errorf("weight of %s is %v: weights must be finite and >= 0", f.name, f.weight)
		}
		positive = positive || f.weight > 0
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
	// coverage scales a tool's score by the fraction of the query's
	// terms it holds.
	coverage bool
	// stem stems words in the analysis chain.
	stem bool
}

// defaultB is BM25's usual length normalisation.
const defaultB = 0.75

func defaultConfig() config {
	return config{weights: DefaultWeights(), coverage: true, stem: true}
}

// fields returns the fields to search with their weights and b.
func (c *config) fields() []weightedField {
	fs := c.weights.fields()
	for i := range fs {
		fs[i].b = defaultB
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

// WithWeights sets the field weights; see [Weights].
func WithWeights(w Weights) Option {
	return func(c *config) { c.weights = w }
}

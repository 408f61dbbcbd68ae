package toolsearch

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// formatVersion names the layout of the index: the mapping, the analysis
// chain and the document fields. An on-disk index records it; one written
// with another format is rebuilt rather than searched with the wrong
// analysis. Change it whenever any of those change.
const formatVersion = "toolsearch/6"

// indexFormat is the format an index of configuration c records: the
// analysis chain depends on whether words are stemmed.
func indexFormat(c *config) string {
	switch {
	case !c.stem:
		return formatVersion + "+unstemmed"
	case c.stemmer != "":
		return formatVersion + "+" + c.stemmer
	}
	return formatVersion
}

// formatKey is the internal key under which an index records its format.
var formatKey = []byte("metatools.toolsearch.format")

// newMapping returns the index mapping: the text fields analysed with
// the identifier-aware analyzer, the namespace as a keyword for
// filtering, the lower-cased name as a keyword for lookups by name and
// the content hash stored but not indexed. Nothing else is stored, and
// nothing is indexed dynamically. The mapping names bleve's BM25 scoring
// model, which an on-disk index records, but no query uses it: scores are
// computed from the postings (see search.go).
func newMapping(stemmer string) (*mapping.IndexMappingImpl, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	stopMap, stopFilter := textAnalysisConfigs()
	if err := m.AddCustomTokenMap(extraStopMapName, stopMap); err != nil {
		return nil, err
	}
	if err := m.AddCustomTokenFilter(extraStopFilterName, stopFilter); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(textAnalyzerName, textAnalyzerConfig(stemmer)); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(pairAnalyzerName, map[string]any{"type": custom.Name, "tokenizer": whitespace.Name}); err != nil {
		return nil, err
	}
	m.DefaultAnalyzer = textAnalyzerName
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false

	doc := bleve.NewDocumentStaticMapping()
	for _, field := range textFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = textAnalyzerName
		fm.Store = false
		fm.IncludeTermVectors = false
		fm.IncludeInAll = false
		fm.DocValues = false
		doc.AddFieldMappingsAt(field, fm)
	}

	pairs := bleve.NewTextFieldMapping()
	pairs.Analyzer = pairAnalyzerName
	pairs.Store = false
	pairs.IncludeTermVectors = false
	pairs.IncludeInAll = false
	pairs.DocValues = false
	doc.AddFieldMappingsAt(namePairsField, pairs)

	ns := bleve.NewKeywordFieldMapping()
	ns.Store = false
	ns.IncludeTermVectors = false
	ns.IncludeInAll = false
	ns.DocValues = false
	ns.SkipFreqNorm = true
	doc.AddFieldMappingsAt(namespaceKeyField, ns)
	nameKey := *ns
	doc.AddFieldMappingsAt(nameKeyField, &nameKey)

	hash := bleve.NewTextFieldMapping()
	hash.Analyzer = keyword.Name
	hash.Index = false
	hash.IncludeTermVectors = false
	hash.IncludeInAll = false
	hash.DocValues = false
	doc.AddFieldMappingsAt(hashField, hash)

	m.DefaultMapping = doc
	return m, nil
}

package toolsearch

import (
	"bytes"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// queryConfig says how the words of a query become the weighted terms
// it is ranked with.
type queryConfig struct {
	// agentScale is what an occurrence of the agent noun of a query
	// word ("finder" for "find", "writer" for "write") counts, against
	// 1 for the word itself; 0 leaves agent nouns out.
	agentScale float64
	// pairWeight is the weight of a pair of query words that a tool's
	// name, or its description lead, holds both of, against 1 for a word;
	// 0 leaves pairs out.
	pairWeight float64
	// pairWindow is how many words apart (stop words not counted) two
	// query words may be to form a pair; 0 means any distance.
	pairWindow int
	// leadPairSpan is how many words apart (stop words not counted) two
	// words of a description lead may be to form a pair (see
	// Weights.LeadPairs).
	leadPairSpan int
	// synonymScale is what an occurrence of a synonym of a query word
	// (synonymGroups) counts; 0 leaves synonyms out. With
	// synonymsShortFields, synonyms are sought in the name, namespace,
	// tags and title only.
	synonymScale        float64
	synonymsShortFields bool
	// coreCoverage, in [0, 1], is how much a tool's score depends on
	// the share of the query words' idf that its core fields
	// (isCoreField) hold: the score is multiplied by
	// 1 - coreCoverage + coreCoverage × share.
	coreCoverage float64
	// qtfK saturates the weight of a word repeated in a query, as
	// (qtfK + 1) × count / (qtfK + count); 0 counts it once.
	qtfK float64
}

// synonymGroups are groups of verbs that API and tool descriptions use
// interchangeably for the same kind of operation: the create, read,
// update, delete, list and search operations every catalogue of tools
// has, named as HTTP APIs, SQL and MCP servers commonly name them. They
// are generic on purpose: words of a domain (issue, ticket, repository)
// are left out, since whether they mean the same depends on the
// catalogue.
var synonymGroups = [][]string{
	{"get", "fetch", "retrieve", "read"},
	{"create", "add", "new", "make"},
	{"delete", "remove"},
	{"update", "edit", "modify", "change"},
	{"list", "enumerate"},
	{"search", "find", "query", "lookup"},
}

// synonymIndex maps each analysed word of synonymGroups to the other
// analysed words of its group.
type synonymIndex map[string][]string

// newSynonymIndex analyses the words of synonymGroups with a and returns
// the synonyms of each.
func newSynonymIndex(a analysis.Analyzer) synonymIndex {
	idx := synonymIndex{}
	for _, group := range synonymGroups {
		var terms []string
		for _, w := range group {
			for _, tok := range a.Analyze([]byte(w)) {
				if t := string(tok.Term); t != "" && !slices.Contains(terms, t) {
					terms = append(terms, t)
				}
			}
		}
		for _, t := range terms {
			for _, u := range terms {
				if u != t && !slices.Contains(idx[t], u) {
					idx[t] = append(idx[t], u)
				}
			}
		}
	}
	return idx
}

// isCoreField reports whether field names or sums up a tool: the short
// fields and the first paragraph of the description, but not the
// details of the description or the parameters, which document it.
func isCoreField(field string) bool {
	return isShortField(field) || field == descriptionField
}

// isShortField reports whether field is one of the short fields that
// name a tool rather than document it.
func isShortField(field string) bool {
	switch field {
	case nameField, namespaceField, tagsField, titleField:
		return true
	}
	return false
}

// agentNoun returns the agent noun of a stemmed verb the way English
// forms it, "find" → "finder", "write" → "writer", or "" for a word too
// short to be a verb. Tools are often named by what they are ("Finder",
// "PDFReader", "ImageConverter") and asked for by what they do ("find",
// "read", "convert"); the stemmer conflates the two forms of long words
// ("converter" and "convert" share the stem "convert") but not of short
// ones. A word that is no verb yields a form no tool holds, which costs
// one dictionary lookup per field.
func agentNoun(term string) string {
	if len(term) < 3 || strings.HasSuffix(term, "er") {
		return ""
	}
	if strings.HasSuffix(term, "e") {
		return term + "r"
	}
	return term + "er"
}

// pairKey is the indexed form of two words of a tool's name: the two in
// alphabetical order, so that "create issue" and "issue create" are the
// same pair, joined by "_", which the analyzer never leaves in a word.
func pairKey(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "_" + b
}

// tokenGroups returns the terms of tokens grouped by position, in order
// of position; a split identifier puts the whole and its first part at
// the same position. The groups share one backing array: a query is
// grouped for every search.
func tokenGroups(tokens analysis.TokenStream) [][]string {
	terms := make([]string, 0, len(tokens))
	var starts []int
	last := 0
	for _, tok := range tokens {
		if len(tok.Term) == 0 {
			continue
		}
		if len(terms) == 0 || tok.Position != last {
			starts = append(starts, len(terms))
			last = tok.Position
		}
		terms = append(terms, string(tok.Term))
	}
	groups := make([][]string, len(starts))
	for i, start := range starts {
		end := len(terms)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		groups[i] = terms[start:end:end]
	}
	return groups
}

// pairs returns the distinct pairs (pairKey) of different terms at most
// window groups apart in groups, in order of first occurrence, at most
// limit of them; window < 1 means any distance.
//
// The cost is linear in the number of groups, whatever the limit and
// however few distinct pairs the groups hold. Within a window, each group
// is paired with the window groups that follow it. At any distance, a
// group that repeats an earlier one adds no pair the earlier one did not
// (pairGroups drops it), and only the first maxPairGroups groups left
// form pairs.
func pairs(groups [][]string, window, limit int) []string {
	if window < 1 {
		groups = pairGroups(groups, maxPairGroups)
	}
	var out []string
	// A query's pairs are few: looking through them costs less than a
	// map.
	var seen map[[2]string]bool
	var few [][2]string
	if limit > maxQueryTerms {
		seen = map[[2]string]bool{}
	}
	for i := range groups {
		for j := i + 1; j < len(groups) && (window < 1 || j-i <= window); j++ {
			for _, a := range groups[i] {
				for _, b := range groups[j] {
					if a == b {
						continue
					}
					k := [2]string{min(a, b), max(a, b)}
					if seen[k] || seen == nil && slices.Contains(few, k) {
						continue
					}
					if len(out) == limit {
						return out
					}
					if seen != nil {
						seen[k] = true
					} else {
						few = append(few, k)
					}
					out = append(out, pairKey(a, b))
				}
			}
		}
	}
	return out
}

// maxPairGroups bounds the groups of words (positions) that form pairs
// at any distance, once repeated groups are dropped (pairGroups), so that
// pairing them costs at most about maxPairGroups²/2 comparisons. A query
// forms pairs only when it holds fewer than maxQueryTerms distinct words,
// which fill well under 256 groups (a group repeats at most once, and
// only when it holds two words: a split identifier and its first part);
// a name holds at most 64 words (toolmodel.MaxNameLen).
const maxPairGroups = 256

// pairGroups returns the groups that can form a pair at any distance
// that no earlier group forms, in order, at most limit of them: the first
// occurrence of each group, and the second one of a group of several
// terms (which pairs its terms with each other). A later occurrence of a
// group pairs its terms with those of the same groups as the first one
// does, and only after it in the order pairs scans them, so pairs over
// the groups returned is pairs over all the groups, as long as fewer than
// limit are returned.
func pairGroups(groups [][]string, limit int) [][]string {
	out := make([][]string, 0, min(len(groups), limit))
	seen := map[string]int{}
	for _, g := range groups {
		if len(out) == limit {
			break
		}
		if len(g) == 0 {
			continue
		}
		key := g[0]
		if len(g) > 1 {
			key = strings.Join(g, "\x00") // no term holds a NUL (isWordRune)
		}
		if n := seen[key]; n == 0 || n == 1 && len(g) > 1 {
			seen[key] = n + 1
			out = append(out, g)
		}
	}
	return out
}

// maxNamePairs bounds the pairs indexed for one name, whose number grows
// with the square of the name's length.
const maxNamePairs = 256

// namePairs returns the text of the name-pairs field of a tool: every
// pair of different words of its name, analysed as the name is.
func (s *Searcher) namePairs(name string) string {
	return strings.Join(pairs(tokenGroups(s.analyzer.Analyze([]byte(name))), 0, maxNamePairs), " ")
}

// leadPairSet returns the pairs of different words of a tool's
// description lead at most leadPairSpan words apart (positions, as
// tokenGroups groups them; stop words are not counted), the pairs pairs
// would form, as a pairSet. Words near each other in the sentence that
// says what a tool does say more together than apart: "air quality
// forecast" is about air quality, a description that mentions air and,
// later, quality may not be.
//
// It hashes each pair as it forms it, without making its key, and stops
// after maxLeadPairs pairs, repeats included: leads are analysed for
// every upserted tool, and this is most of what a tool's upsert costs
// beside bleve's indexing.
func (s *Searcher) leadPairSet(lead string) pairSet {
	if s.leadPairWeight <= 0 || s.query.leadPairSpan < 1 {
		return nil
	}
	var terms [][]byte // the non-empty terms, in order
	var starts []int   // where each group (position) starts in terms
	last := 0
	for _, tok := range s.analyzer.Analyze([]byte(lead)) {
		if len(tok.Term) == 0 {
			continue
		}
		if len(terms) == 0 || tok.Position != last {
			starts = append(starts, len(terms))
			last = tok.Position
		}
		terms = append(terms, tok.Term)
	}
	starts = append(starts, len(terms))
	var set pairSet
	span := s.query.leadPairSpan
	for g := 0; g+1 < len(starts); g++ {
		for h := g + 1; h+1 < len(starts) && h-g <= span; h++ {
			for _, a := range terms[starts[g]:starts[g+1]] {
				for _, b := range terms[starts[h]:starts[h+1]] {
					if bytes.Equal(a, b) {
						continue
					}
					if len(set) == maxLeadPairs {
						break
					}
					set = append(set, pairHashOf(a, b))
				}
			}
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// maxLeadPairs bounds the pairs formed for one description lead.
const maxLeadPairs = 1024

// weightedQuery returns the weighted terms to rank a query with, given
// its tokens and its distinct terms (as queryTerms returns them): each term with its synonyms and its
// agent noun as alternatives, then the pairs of its words near each other
// (searched in the names' pairs only), at most maxQueryTerms in all. Pairs
// are formed only when the query holds fewer than maxQueryTerms distinct
// terms, so they are pairs of the terms given, and there are at most
// maxQueryTerms - len(terms) of them. Its cost is linear in the number of
// tokens (see pairs).
func (s *Searcher) weightedQuery(tokens analysis.TokenStream, terms []string) []weightedTerm {
	c := s.query
	q := make([]weightedTerm, 0, len(terms))
	var counts map[string]int
	if c.qtfK > 0 {
		counts = map[string]int{}
		for _, tok := range tokens {
			counts[string(tok.Term)]++
		}
	}
	for _, term := range terms {
		wt := weightedTerm{term: term, weight: 1}
		if n := float64(counts[term]); n > 1 {
			wt.weight = (c.qtfK + 1) * n / (c.qtfK + n)
		}
		for _, alt := range s.synonyms[term] {
			if !slices.Contains(terms, alt) {
				wt.alts = append(wt.alts, altTerm{term: alt, scale: c.synonymScale, shortFields: c.synonymsShortFields})
			}
		}
		if agent := agentNoun(term); c.agentScale > 0 && agent != "" && !slices.Contains(terms, agent) {
			wt.alts = append(wt.alts, altTerm{term: agent, scale: c.agentScale})
		}
		q = append(q, wt)
	}
	if c.pairWeight > 0 && len(terms) > 1 && len(q) < maxQueryTerms {
		for _, k := range pairs(tokenGroups(tokens), c.pairWindow, maxQueryTerms-len(q)) {
			a, b, _ := strings.Cut(k, "_")
			// Pairs are formed only when terms holds every word of the
			// query, so both words are among them.
			i, _ := slices.BinarySearch(terms, a)
			j, _ := slices.BinarySearch(terms, b)
			q = append(q, weightedTerm{term: k, weight: c.pairWeight, pair: true, words: [2]int{i, j}, hash: pairHash(k)})
		}
	}
	return q
}

package toolsearch

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// maxQueryTerms bounds the distinct words of a query that count, so that
// a very long text costs a bounded number of term lookups.
const maxQueryTerms = 64

// Search implements [toolindex.Searcher]. A tool matches when it contains
// any word of the query.
func (s *Searcher) Search(ctx context.Context, q toolindex.SearchQuery) ([]toolindex.Hit, error) {
	const op = "toolsearch.Searcher.Search"
	if err := ctxError(ctx, op); err != nil {
		return nil, err
	}
	if q.Offset < 0 || q.Limit < 1 {
		return nil, opError(op, errors.InvalidArgument, "offset %d and limit %d: need offset >= 0 and limit >= 1", q.Offset, q.Limit)
	}
	terms := s.queryTerms(q.Text)
	if len(terms) == 0 {
		return []toolindex.Hit{}, nil
	}

	unlock, err := s.lockRead(op)
	if err != nil {
		return nil, err
	}
	defer unlock()
	qry, n, err := s.buildQuery(ctx, terms, q.Namespace)
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	if qry == nil || uint64(q.Offset) >= n {
		return []toolindex.Hit{}, nil
	}
	end := q.Offset + int(min(uint64(q.Limit), n-uint64(q.Offset)))
	hits, err := s.ranking(ctx, qry, end, false)
	if err == nil && !settled(hits, end) {
		hits, err = s.ranking(ctx, qry, end, true)
	}
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	return hits[min(q.Offset, len(hits)):min(end, len(hits))], nil
}

// tieSlack is how many hits past the end of a page a query fetches, so
// that the ties at the end of the page can be put in ID order.
const tieSlack = 32

// ranking returns the first hits of qry in score then ID order: exactly
// the first end hits when byID is set, and otherwise the first
// end+tieSlack hits by score, put in ID order within equal scores.
//
// Sorting by ID in bleve makes it read the ID of every matching document,
// a good part of the cost of a query; sorting by score alone reads only
// the IDs of the hits it returns. A ranking by score alone is right
// up to end when the group of equal scores at end is complete, which
// settled checks; otherwise Search asks again with byID.
func (s *Searcher) ranking(ctx context.Context, qry query.Query, end int, byID bool) ([]toolindex.Hit, error) {
	size := end + tieSlack
	if byID {
		size = end
	}
	req := bleve.NewSearchRequestOptions(qry, size, 0, false)
	if byID {
		req.SortBy([]string{"-_score", "_id"})
	}
	res, err := s.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	hits := make([]toolindex.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = toolindex.Hit{ID: h.ID, Score: h.Score}
	}
	if !byID {
		slices.SortFunc(hits, func(a, b toolindex.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return hits, nil
}

// settled reports whether hits, the best hits by score of a query that
// asked for end+tieSlack of them, hold every hit that ranks before end: it
// holds all the matches, or its last hit scores below the hit at end, so
// that no match left out ties with a hit before end.
func settled(hits []toolindex.Hit, end int) bool {
	return len(hits) < end+tieSlack || hits[len(hits)-1].Score < hits[end-1].Score
}

// queryTerms analyses text as the fields were analysed and returns its
// distinct terms, sorted, at most maxQueryTerms of them (the first ones).
func (s *Searcher) queryTerms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, tok := range s.analyzer.Analyze([]byte(text)) {
		term := string(tok.Term)
		if term == "" || seen[term] {
			continue
		}
		seen[term] = true
		terms = append(terms, term)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	slices.Sort(terms)
	return terms
}

// buildQuery returns the query for terms, and the number of indexed
// documents; the query is nil when no term occurs in any searched field.
//
// The query is a disjunction over the terms of a disjunction over the
// fields of term queries. Bleve scales a disjunction by the fraction of
// its clauses that match, which is what makes a tool that contains more
// of the query's words rank higher. The inner disjunction has a clause
// only for the fields where the term occurs at all, so that a word is not
// discounted for the fields that never contain it.
//
// Each term query is boosted by the field's weight divided by the term's
// idf in that field: bleve multiplies a term's BM25 score, which already
// holds the idf, by a query weight that holds it again, and the division
// brings the score back to weight × BM25, so that one rare word does not
// outweigh all the others.
//
// Term queries take the terms as they are, so nothing in the text is ever
// interpreted as query syntax.
func (s *Searcher) buildQuery(ctx context.Context, terms []string, namespace string) (query.Query, uint64, error) {
	adv, err := s.idx.Advanced()
	if err != nil {
		return nil, 0, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	n, err := r.DocCount()
	if err != nil || n == 0 {
		return nil, 0, err
	}

	perTerm := make([]query.Query, 0, len(terms))
	for _, term := range terms {
		var perField []query.Query
		for _, f := range s.fields {
			df, err := docFreq(ctx, r, term, f.name)
			if err != nil {
				return nil, 0, err
			}
			if df == 0 {
				continue
			}
			tq := bleve.NewTermQuery(term)
			tq.SetField(f.name)
			tq.SetBoost(f.weight / bm25IDF(n, df))
			perField = append(perField, tq)
		}
		switch len(perField) {
		case 0:
		case 1: // the same score as a disjunction of one clause, with less work
			perTerm = append(perTerm, perField[0])
		default:
			perTerm = append(perTerm, bleve.NewDisjunctionQuery(perField...))
		}
	}
	if len(perTerm) == 0 {
		return nil, n, nil
	}
	var q query.Query = bleve.NewDisjunctionQuery(perTerm...)
	if namespace != "" {
		ns := bleve.NewTermQuery(namespace)
		ns.SetField(namespaceKeyField)
		bq := bleve.NewBooleanQuery()
		bq.AddShould(q)
		bq.AddFilter(ns)
		q = bq
	}
	return q, n, nil
}

// docFreq returns the number of documents whose field contains term.
func docFreq(ctx context.Context, r index.IndexReader, term, field string) (uint64, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return 0, err
	}
	df := tfr.Count()
	return df, tfr.Close()
}

// bm25IDF is the idf of a term found in df of n documents, as bleve's
// BM25 scorer computes it; it is positive whenever df <= n.
func bm25IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

package toolsearch

import (
	"cmp"
	"slices"

	"github.com/metatools-go/metatools/toolindex"
)

// fusionK is the constant of reciprocal-rank fusion: a hit at rank r
// (from 1) of a ranking scores 1/(fusionK + r). The usual value: it keeps
// the first ranks of either ranking from drowning the other.
const fusionK = 60

// fusionDepth is how many hits of each ranking are fused at least: a tool
// that one ranking puts deep but the other near the top can still come
// first.
const fusionDepth = 50

// weightedRanking is a ranking and its weight in a fusion.
type weightedRanking struct {
	hits   []toolindex.Hit
	weight float64
}

// fuse merges rankings by weighted reciprocal-rank fusion, and returns
// the first end hits, best first, ties in ID order. A tool's score is the
// sum over the rankings that hold it of weight/(fusionK + its rank there).
// Hits of equal score share the rank of the first of them, so that tools
// a ranking cannot tell apart stay tied.
func fuse(end int, rankings ...weightedRanking) []toolindex.Hit {
	scores := map[string]float64{}
	for _, ranking := range rankings {
		rank := 0
		for i, h := range ranking.hits {
			if i == 0 || h.Score != ranking.hits[i-1].Score {
				rank = i + 1
			}
			scores[h.ID] += ranking.weight / float64(fusionK+rank)
		}
	}
	hits := make([]toolindex.Hit, 0, len(scores))
	for id, score := range scores {
		hits = append(hits, toolindex.Hit{ID: id, Score: score})
	}
	slices.SortFunc(hits, func(a, b toolindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits[:min(end, len(hits))]
}

// blendDepth is how deep a blend reads the lexical ranking, and how deep
// at most it reads the BM25F one for tools the lexical scores could
// lift into the page.
const blendDepth = 30

// blend adds up two rankings' scores, each divided by its best score so
// that the two weigh alike whatever their scales, the second's
// multiplied by weight, and returns the first end hits, best first, ties
// in ID order. A tool missing from a ranking scores 0 there.
func blend(end int, first, second []toolindex.Hit, weight float64) []toolindex.Hit {
	if len(first) == 0 || len(second) == 0 || first[0].Score <= 0 || second[0].Score <= 0 {
		return first[:min(end, len(first))]
	}
	scores := make(map[string]float64, len(first)+len(second))
	for _, h := range first {
		scores[h.ID] += h.Score / first[0].Score
	}
	for _, h := range second {
		scores[h.ID] += weight * h.Score / second[0].Score
	}
	hits := make([]toolindex.Hit, 0, len(scores))
	for id, score := range scores {
		hits = append(hits, toolindex.Hit{ID: id, Score: score})
	}
	slices.SortFunc(hits, func(a, b toolindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits[:min(end, len(hits))]
}

// Package metrics computes the retrieval metrics of a ranked result list
// against graded relevance labels: Recall@k, reciprocal rank and nDCG@k,
// plus latency percentiles.
//
// Grades are integers; a tool counts as relevant when its grade is at
// least 1. Ranks are 1-based.
package metrics

import (
	"math"
	"slices"
	"time"
)

// Recall returns the share of the relevant tools found in the first k of
// ranked: the relevant tools among them divided by the number of relevant
// tools, capped at k (so that a perfect top k scores 1 even when more
// tools are relevant). It is 0 when nothing is relevant or k < 1.
func Recall(ranked []string, relevant map[string]int, k int) float64 {
	total := 0
	for _, grade := range relevant {
		if grade >= 1 {
			total++
		}
	}
	if total == 0 || k < 1 {
		return 0
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if relevant[id] >= 1 {
			found++
		}
	}
	return float64(found) / float64(min(total, k))
}

// ReciprocalRank returns 1/r for the rank r of the first relevant tool in
// the first k of ranked, or 0 when none of them is relevant.
func ReciprocalRank(ranked []string, relevant map[string]int, k int) float64 {
	for i, id := range ranked[:max(0, min(k, len(ranked)))] {
		if relevant[id] >= 1 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// NDCG returns the normalized discounted cumulative gain of the first k of
// ranked: the sum over ranks r of (2^grade - 1) / log2(r + 1), divided by
// the same sum for the ideal ordering of the relevant tools. It is 0 when
// nothing is relevant or k < 1.
func NDCG(ranked []string, relevant map[string]int, k int) float64 {
	if k < 1 {
		return 0
	}
	var dcg float64
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += gain(relevant[id]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(relevant))
	for _, grade := range relevant {
		if grade >= 1 {
			grades = append(grades, grade)
		}
	}
	slices.SortFunc(grades, func(a, b int) int { return b - a })
	var ideal float64
	for i, grade := range grades[:min(k, len(grades))] {
		ideal += gain(grade) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// gain is the graded gain of a tool: 2^grade - 1, and 0 for a tool that
// is not relevant.
func gain(grade int) float64 {
	if grade < 1 {
		return 0
	}
	return math.Exp2(float64(grade)) - 1
}

// Percentile returns the p-th percentile (0 < p <= 100) of samples by the
// nearest-rank method: the smallest sample that at least p percent of the
// samples do not exceed. It returns 0 for no samples; samples is not
// modified.
func Percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

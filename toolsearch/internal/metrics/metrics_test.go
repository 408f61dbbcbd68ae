package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRecall(t *testing.T) {
	relevant := map[string]int{"a": 2, "b": 1, "c": 1, "z": 0}
	tests := []struct {
		name   string
		ranked []string
		k      int
		want   float64
	}{
		{"AllInTopK", []string{"a", "b", "c", "x"}, 5, 1},
		{"OneOfThree", []string{"x", "b", "y"}, 5, 1.0 / 3},
		{"CappedAtK", []string{"a", "x"}, 1, 1},      // 1 found / min(3, 1)
		{"MissAtOne", []string{"x", "a"}, 1, 0},      // the first hit is not relevant
		{"TwoOfKTwo", []string{"c", "a", "b"}, 2, 1}, // 2 / min(3, 2)
		{"GradeZeroIsNotRelevant", []string{"z", "a"}, 2, 0.5},
		{"ShortRanking", []string{"b"}, 10, 1.0 / 3},
		{"Empty", nil, 10, 0},
		{"KZero", []string{"a"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Recall(tt.ranked, relevant, tt.k), 1e-12)
		})
	}
	assert.Zero(t, Recall([]string{"a"}, map[string]int{"a": 0}, 5), "nothing relevant")
}

func TestReciprocalRank(t *testing.T) {
	relevant := map[string]int{"a": 1, "b": 2}
	tests := []struct {
		name   string
		ranked []string
		k      int
		want   float64
	}{
		{"First", []string{"a", "x"}, 10, 1},
		{"Third", []string{"x", "y", "b", "a"}, 10, 1.0 / 3},
		{"BeyondK", []string{"x", "y", "b"}, 2, 0},
		{"None", []string{"x", "y"}, 10, 0},
		{"Empty", nil, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, ReciprocalRank(tt.ranked, relevant, tt.k), 1e-12)
		})
	}
}

func TestNDCG(t *testing.T) {
	relevant := map[string]int{"a": 2, "b": 1, "z": 0}
	tests := []struct {
		name   string
		ranked []string
		k      int
		want   float64
	}{
		{"Ideal", []string{"a", "b", "x"}, 10, 1},
		// DCG = 1/log2(2) + 3/log2(3); IDCG = 3/log2(2) + 1/log2(3).
		{"Swapped", []string{"b", "a"}, 10, (1 + 3/math.Log2(3)) / (3 + 1/math.Log2(3))},
		// DCG = 3/log2(4) = 1.5.
		{"BestAtThree", []string{"x", "y", "a"}, 10, 1.5 / (3 + 1/math.Log2(3))},
		// The ideal ordering is cut at k too: IDCG@1 = 3.
		{"CutAtK", []string{"b", "a"}, 1, 1.0 / 3},
		{"NoneRelevant", []string{"x", "z"}, 10, 0},
		{"Empty", nil, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, NDCG(tt.ranked, relevant, tt.k), 1e-12)
		})
	}
	assert.Zero(t, NDCG([]string{"a"}, map[string]int{}, 10), "nothing relevant")
}

func TestPercentile(t *testing.T) {
	samples := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	tests := []struct {
		p    float64
		want time.Duration
	}{
		{50, 5}, {90, 9}, {99, 10}, {100, 10}, {1, 1}, {0, 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Percentile(samples, tt.p), "p%v", tt.p)
	}
	assert.Equal(t, time.Duration(5), samples[0], "samples are not modified")
	assert.Zero(t, Percentile(nil, 50))
}

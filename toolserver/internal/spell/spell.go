package spell

import (
	"cmp"
	"slices"
	"strings"
)

// maxWord is the longest word compared, in bytes: keys, commands and tool
// IDs are short, and a long input is no misspelling of one of them. It
// also bounds the work of one comparison.
const maxWord = 128

// Distance is the optimal string alignment distance of a and b
// (Damerau-Levenshtein without repeated edits of one substring): the
// fewest insertions, deletions, substitutions and transpositions of two
// adjacent bytes that turn a into b. Words longer than 128 bytes are
// not compared: their distance is the longer length.
func Distance(a, b string) int {
	if len(a) > maxWord || len(b) > maxWord {
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Limit is the largest distance at which a known word is suggested for
// word: one edit for words of up to five bytes, then one more for each
// three bytes, three at most.
func Limit(word string) int { return max(1, min(3, len(word)/3)) }

// distance is Distance, but a difference of case alone counts as one
// edit ("Command" for "command"), and identical words are not near.
func distance(word, known string) int {
	if word == known {
		return -1
	}
	if strings.EqualFold(word, known) {
		return 1
	}
	return Distance(word, known)
}

// Suggest returns the known word nearest to word, when it is within
// [Limit]: the first of known at the smallest distance. It returns false
// when none is near enough, or when word is itself known.
func Suggest(word string, known []string) (string, bool) {
	near := Nearest(word, known, 1)
	if len(near) == 0 {
		return "", false
	}
	return near[0], true
}

// Nearest returns up to n known words within [Limit] of word, nearest
// first, in the order of known at equal distances, without repeats. It
// returns none when word is itself known.
func Nearest(word string, known []string, n int) []string {
	type hit struct {
		word string
		dist int
		at   int
	}
	limit := Limit(word)
	var hits []hit
	for i, k := range known {
		d := distance(word, k)
		if d < 0 {
			return nil
		}
		if d <= limit {
			hits = append(hits, hit{k, d, i})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.at, b.at)) })
	var out []string
	for _, h := range hits {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, h.word) {
			out = append(out, h.word)
		}
	}
	return out
}

package toolindex

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSortedSetMatchesModel drives a sortedSet and a plain map with the
// same random operations, enough to split and merge blocks many times,
// and compares them after each round.
func TestSortedSetMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s sortedSet
	model := map[string]bool{}
	for round := range 8 {
		for range 3000 {
			x := fmt.Sprintf("id%05d", rng.IntN(6000))
			if rng.IntN(3) < 2-round%2 { // alternately grow and shrink
				assert.Equal(t, !model[x], s.insert(x), "insert %s", x)
				model[x] = true
			} else {
				assert.Equal(t, model[x], s.remove(x), "remove %s", x)
				delete(model, x)
			}
		}
		want := slices.Sorted(maps.Keys(model))
		require.Equal(t, len(want), s.len())
		var got []string
		s.ascend("", func(x string) bool { got = append(got, x); return true })
		require.Equal(t, want, got, "round %d", round)
		for _, b := range s.blocks {
			require.NotEmpty(t, b)
			require.LessOrEqual(t, len(b), blockSize)
		}
		// A walk from any point, present or not, starts after it.
		for _, after := range []string{"id00000", "id02999", "id03000x", "id99999", "a"} {
			walked := []string{}
			s.ascend(after, func(x string) bool { walked = append(walked, x); return len(walked) < 3 })
			i, _ := slices.BinarySearch(want, after)
			if i < len(want) && want[i] == after {
				i++
			}
			assert.Equal(t, want[i:min(i+3, len(want))], walked, "after %q", after)
		}
	}
}

func TestSortedSetEmpty(t *testing.T) {
	var s sortedSet
	assert.False(t, s.remove("x"))
	called := false
	s.ascend("", func(string) bool { called = true; return true })
	assert.False(t, called)
	assert.True(t, s.insert("x"))
	assert.True(t, s.remove("x"))
	assert.Empty(t, s.blocks)
}

// TestSortedSetShrinks removes most of a large set and checks that the
// blocks merge, so that a walk does not wade through empty or tiny
// blocks.
func TestSortedSetShrinks(t *testing.T) {
	var s sortedSet
	for i := range 20000 {
		s.insert(fmt.Sprintf("id%05d", i))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kept := map[string]bool{}
	for _, i := range rng.Perm(20000) {
		x := fmt.Sprintf("id%05d", i)
		if i%50 == 0 {
			kept[x] = true
			continue
		}
		require.True(t, s.remove(x))
	}
	assert.Equal(t, len(kept), s.len())
	assert.LessOrEqual(t, len(s.blocks), 4, "400 strings fit in a few blocks")
	var got []string
	s.ascend("", func(x string) bool { got = append(got, x); return true })
	assert.Equal(t, slices.Sorted(maps.Keys(kept)), got)
}

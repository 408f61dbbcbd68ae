package toolindex

import (
	"slices"
	"sort"
)

// blockSize is the largest block of a sortedSet: a block this size moves
// in a few hundred nanoseconds, and a catalogue of a hundred thousand
// tools holds only a few hundred blocks.
const blockSize = 512

// sortedSet is a set of strings kept in ascending order, as a list of
// sorted blocks, each holding at most blockSize strings; a block that
// removals shrink below a quarter of that merges with a neighbour when they
// fit together. It costs
// O(log n + blockSize + n/blockSize) per insertion or removal, and
// O(log n) to find where an ordered walk starts, after which each element
// costs O(1). The zero value is an empty set. It is not safe for
// concurrent modification.
type sortedSet struct {
	blocks [][]string // non-empty, in order: every string of a block is below those of the next
	n      int
}

// len returns the number of strings in the set.
func (s *sortedSet) len() int { return s.n }

// blockFor returns the index of the block where x belongs: the first
// block whose last string is at least x, or the last block.
func (s *sortedSet) blockFor(x string) int {
	i := sort.Search(len(s.blocks), func(i int) bool {
		b := s.blocks[i]
		return b[len(b)-1] >= x
	})
	return min(i, len(s.blocks)-1)
}

// insert adds x and reports whether it was absent.
func (s *sortedSet) insert(x string) bool {
	if len(s.blocks) == 0 {
		s.blocks = [][]string{{x}}
		s.n = 1
		return true
	}
	bi := s.blockFor(x)
	b := s.blocks[bi]
	j, found := slices.BinarySearch(b, x)
	if found {
		return false
	}
	b = slices.Insert(b, j, x)
	s.n++
	if len(b) <= blockSize {
		s.blocks[bi] = b
		return true
	}
	// Split a full block in two halves that each own their array, so
	// that later insertions into one never write into the other.
	half := len(b) / 2
	left := slices.Clone(b[:half])
	right := slices.Clone(b[half:])
	s.blocks[bi] = left
	s.blocks = slices.Insert(s.blocks, bi+1, right)
	return true
}

// remove deletes x and reports whether it was present.
func (s *sortedSet) remove(x string) bool {
	if len(s.blocks) == 0 {
		return false
	}
	bi := s.blockFor(x)
	b := s.blocks[bi]
	j, found := slices.BinarySearch(b, x)
	if !found {
		return false
	}
	b = slices.Delete(b, j, j+1)
	s.n--
	s.blocks[bi] = b
	switch {
	case len(b) == 0:
		s.blocks = slices.Delete(s.blocks, bi, bi+1)
	case len(b) < blockSize/4:
		s.mergeSmall(bi)
	}
	return true
}

// mergeSmall merges block bi with a neighbour when both fit in one block,
// so that removals cannot leave many tiny blocks behind.
func (s *sortedSet) mergeSmall(bi int) {
	for _, left := range []int{bi, bi - 1} {
		if left < 0 || left+1 >= len(s.blocks) {
			continue
		}
		a, b := s.blocks[left], s.blocks[left+1]
		if len(a)+len(b) > blockSize {
			continue
		}
		merged := make([]string, 0, len(a)+len(b))
		s.blocks[left] = append(append(merged, a...), b...)
		s.blocks = slices.Delete(s.blocks, left+1, left+2)
		return
	}
}

// ascend calls fn with every string above after, in ascending order,
// until fn returns false. An empty after starts from the first string.
func (s *sortedSet) ascend(after string, fn func(string) bool) {
	if len(s.blocks) == 0 {
		return
	}
	bi := s.blockFor(after)
	j, found := slices.BinarySearch(s.blocks[bi], after)
	if found {
		j++
	}
	for ; bi < len(s.blocks); bi, j = bi+1, 0 {
		for _, x := range s.blocks[bi][j:] {
			if !fn(x) {
				return
			}
		}
	}
}

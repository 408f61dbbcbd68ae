package toolops

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

func TestSplitCursor(t *testing.T) {
	tests := []struct {
		cursor string
		at     string
		skip   int
		ok     bool
	}{
		{"", "", 0, true},
		{"TGFiYw", "TGFiYw", 0, true},
		{"TGFiYw.3", "TGFiYw", 3, true},
		{".7", "", 7, true},
		{"TGFiYw.99", "TGFiYw", 99, true},
		{"TGFiYw.100", "", 0, false},
		{"TGFiYw.0", "", 0, false},
		{"TGFiYw.03", "", 0, false},
		{"TGFiYw.-1", "", 0, false},
		{"TGFiYw.+1", "", 0, false},
		{"TGFiYw.", "", 0, false},
		{"a.1.2", "", 0, false},
	}
	for _, tt := range tests {
		at, skip, err := splitCursor(tt.cursor)
		if !tt.ok {
			require.Error(t, err, tt.cursor)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			continue
		}
		require.NoError(t, err, tt.cursor)
		assert.Equal(t, tt.at, at, tt.cursor)
		assert.Equal(t, tt.skip, skip, tt.cursor)
		assert.Equal(t, tt.cursor, joinCursor(at, skip), "a cursor is rebuilt as it was")
	}
}

// FuzzSplitCursor parses arbitrary cursors: never a panic, and a cursor
// that parses is the one joinCursor builds from its parts.
func FuzzSplitCursor(f *testing.F) {
	for _, seed := range []string{"", "abc", "abc.1", ".99", "abc.100", "a.b.c", "x.007", "\xff.1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		at, skip, err := splitCursor(cursor)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			return
		}
		assert.GreaterOrEqual(t, skip, 0)
		assert.Equal(t, cursor, joinCursor(at, skip))
	})
}

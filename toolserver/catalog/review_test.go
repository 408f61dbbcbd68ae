package catalog_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/catalog"
)

// TestApproveTakesIDsOrAnUpstream checks the approval's arguments: the
// IDs of items, or one upstream, never both nor neither; and that an
// empty store has nothing to review nor to approve.
func TestApproveTakesIDsOrAnUpstream(t *testing.T) {
	pins := filepath.Join(t.TempDir(), "pins.db")
	for _, c := range []struct {
		name     string
		ids      []string
		upstream string
	}{
		{"neither", nil, ""},
		{"both", []string{"notes:add"}, "notes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := catalog.Approve(pins, c.ids, c.upstream)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "%v", err)
		})
	}
	pending, err := catalog.Review(pins)
	require.NoError(t, err)
	assert.Empty(t, pending)
	approved, err := catalog.Approve(pins, nil, "notes")
	require.NoError(t, err)
	assert.Empty(t, approved, "an upstream with nothing waiting")
	_, err = catalog.Approve(pins, []string{"notes:add"}, "")
	assert.Equal(t, errors.NotFound, errors.CodeOf(err), "%v", err)
}

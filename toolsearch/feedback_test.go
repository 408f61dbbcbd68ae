package toolsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

// TestFeedbackFindsToolsThroughTheWordsOfTheFirstHits checks that a tool
// sharing no word with the query, but many with the query's best hit,
// is found with feedback and not without.
func TestFeedbackFindsToolsThroughTheWordsOfTheFirstHits(t *testing.T) {
	tools := []toolmodel.Tool{
		newTool("fs", "read_file", "Read a file from the local disk and return its text content."),
		newTool("fs", "cat", "Print the text content of a path on the local disk."),
		newTool("web", "fetch", "Download a web page over HTTP."),
	}
	for _, tc := range []struct {
		name string
		opts []toolsearch.Option
		want []string
	}{
		{name: "without feedback", want: []string{"fs:read_file"}},
		{name: "with feedback", opts: []toolsearch.Option{toolsearch.WithFeedback(toolsearch.DefaultFeedback())}, want: []string{"fs:read_file", "fs:cat"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := toolsearch.New(tc.opts...)
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, s.Upsert(t.Context(), tools))
			assert.Equal(t, tc.want, searchIDs(t, s, "read file"))
		})
	}
}

// TestFeedbackFollowsRemovals checks that a removed tool's words no
// longer expand queries.
func TestFeedbackFollowsRemovals(t *testing.T) {
	s, err := toolsearch.New(toolsearch.WithFeedback(toolsearch.DefaultFeedback()))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(t.Context(), []toolmodel.Tool{
		newTool("fs", "read_file", "Read a file from the local disk and return its text content."),
		newTool("fs", "cat", "Print the text content of a path on the local disk."),
	}))
	require.NoError(t, s.Remove(t.Context(), []string{"fs:read_file"}))
	assert.Empty(t, searchIDs(t, s, "read file"))
}

func TestFeedbackSettingsAreChecked(t *testing.T) {
	for _, f := range []toolsearch.Feedback{
		{Docs: 0, Terms: 10, QueryWeight: 0.5},
		{Docs: 3, Terms: -1, QueryWeight: 0.5},
		{Docs: 3, Terms: 10, QueryWeight: 0},
		{Docs: 3, Terms: 10, QueryWeight: 1.5},
	} {
		_, err := toolsearch.New(toolsearch.WithFeedback(f))
		require.Error(t, err, "%+v", f)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	}
	s, err := toolsearch.New(toolsearch.WithFeedback(toolsearch.Feedback{}))
	require.NoError(t, err, "the zero value turns feedback off")
	require.NoError(t, s.Close())
}

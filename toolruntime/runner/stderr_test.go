package runner_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolruntime/runner"
)

func TestStderrKeepsHeadAndTail(t *testing.T) {
	s := runner.NewStderr(16)
	_, _ = s.Write([]byte("fatal"))
	assert.Equal(t, "fatal", s.String(), "short output is kept whole")

	for range 10 {
		n, err := s.Write([]byte(strings.Repeat("x", 10)))
		assert.Equal(t, 10, n)
		require.NoError(t, err)
	}
	_, _ = s.Write([]byte("the end"))
	got := s.String()
	assert.True(t, strings.HasPrefix(got, "fata"), "the first quarter stays: %q", got)
	assert.True(t, strings.HasSuffix(got, "the end"), "the last bytes stay: %q", got)
	assert.Contains(t, got, "[...]", "a cut is marked")
	assert.LessOrEqual(t, len(got), 16+len("\n[...]\n"))
}

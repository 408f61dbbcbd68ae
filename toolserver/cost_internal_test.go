package toolserver

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// TestResultError shows that the error of a meta-tool's error result, as
// a client session receives it (its _meta decoded from JSON), is the error
// the server had, code included.
func TestResultError(t *testing.T) {
	raw, err := json.Marshal(toolError(errors.Errorf(errors.InvalidArgument, "limit: 101 is more than 100")))
	require.NoError(t, err)
	var received mcp.CallToolResult
	require.NoError(t, json.Unmarshal(raw, &received))

	got := resultError(&received)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(got))
	require.EqualError(t, got, "limit: 101 is more than 100")

	got = resultError(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no meta"}}})
	assert.Equal(t, errors.Internal, errors.CodeOf(got))
}

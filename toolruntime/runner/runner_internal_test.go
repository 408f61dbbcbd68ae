package runner

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
)

// preparing is an engine that records, in order, its preparation and what
// the runner wrote before it.
type preparing struct {
	events *[]string
	out    *strings.Builder
}

func (preparing) Language() string { return "javascript" }

func (p preparing) Prepare(context.Context) error {
	*p.events = append(*p.events, "prepare, after writing "+strings.TrimSpace(p.out.String()))
	return nil
}

func (preparing) Execute(context.Context, toolcode.Program) (json.RawMessage, error) {
	return json.RawMessage("1"), nil
}

// TestReadyAfterPreparing shows that a runner started ahead prepares its
// engines before it says it is ready, and one started for its execution
// prepares nothing.
func TestReadyAfterPreparing(t *testing.T) {
	for _, ready := range []bool{true, false} {
		var events []string
		var out strings.Builder
		err := serve(t.Context(), strings.NewReader(""), &out, ready, preparing{events: &events, out: &out})
		require.ErrorIs(t, err, io.EOF, "the host sent no execution")
		if ready {
			assert.Equal(t, []string{"prepare, after writing "}, events, "prepared before anything was written")
			assert.Contains(t, out.String(), `"method":"ready"`)
		} else {
			assert.Empty(t, events)
			assert.Empty(t, out.String())
		}
	}
}

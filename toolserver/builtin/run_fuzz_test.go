package builtin_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

// FuzzRunTools runs each tool of the catalogue with arbitrary JSON
// arguments, its examples as seeds: a call fails with a coded error,
// reports a tool failure, or returns a result that encodes as JSON; no
// call panics.
func FuzzRunTools(f *testing.F) {
	h := newHarness(f, builtin.WithQueryTimeout(100*time.Millisecond))
	for i, tool := range h.tools {
		for _, ex := range tool.Examples {
			raw, err := json.Marshal(ex.Args)
			require.NoError(f, err)
			f.Add(uint8(i), raw)
		}
		f.Add(uint8(i), []byte(`{}`))
		f.Add(uint8(i), []byte(`{"text": "\u0000\uffff", "value": 1e308, "to": "", "limit": -1}`))
	}
	f.Fuzz(func(t *testing.T, tool uint8, rawArgs []byte) {
		var args map[string]any
		if json.Unmarshal(rawArgs, &args) != nil {
			return
		}
		id := h.tools[int(tool)%len(h.tools)].ID()
		res, err := h.runner.Run(context.Background(), id, args)
		if err != nil {
			var coded *errors.Error
			require.ErrorAs(t, err, &coded)
			return
		}
		if res.ToolError != nil {
			assert.NotEmpty(t, res.ToolError.Error())
			return
		}
		_, err = json.Marshal(res.Structured)
		require.NoError(t, err, "%s(%s)", id, rawArgs)
	})
}

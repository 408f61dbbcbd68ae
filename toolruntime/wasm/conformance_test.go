package wasm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
)

func TestConformance(t *testing.T) {
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, shared))
	require.NoError(t, err)
	for _, lang := range []string{"javascript", "typescript"} {
		t.Run(lang, func(t *testing.T) {
			toolcodetest.RunEngine(t, func() toolcode.Engine {
				e, err := rt.Engine(toolruntime.Hardened, lang)
				require.NoError(t, err)
				return e
			})
		})
	}
}

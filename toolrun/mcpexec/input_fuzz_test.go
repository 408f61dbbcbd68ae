package mcpexec

import (
	"testing"

	"github.com/metatools-go/metatools/toolrun"
)

// FuzzDecodeInputState gives the executor any state of an earlier
// attempt: it is decoded, or refused with an error, never a panic.
func FuzzDecodeInputState(f *testing.F) {
	f.Add(`{"upstream":"round 1"}`)
	f.Add(`{"answers":{"k":{"action":"accept","content":{"name":"Ada"}}}}`)
	f.Add(`{"answers":{"k":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}}`)
	f.Add(`{"answers":{"k":{}}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, state string) {
		st, _, err := decodeInputState(&toolrun.Input{State: state})
		if err != nil {
			return
		}
		if _, err := st.encode(); err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
	})
}

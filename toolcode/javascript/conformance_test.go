package javascript_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

func TestConformance(t *testing.T) {
	t.Run("javascript", func(t *testing.T) {
		toolcodetest.RunEngine(t, func() toolcode.Engine { return javascript.New() })
	})
	t.Run("typescript", func(t *testing.T) {
		toolcodetest.RunEngine(t, func() toolcode.Engine { return javascript.NewTypeScript() })
	})
}

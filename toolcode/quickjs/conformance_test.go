package quickjs_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/quickjs"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

func TestConformance(t *testing.T) {
	toolcodetest.RunEngine(t, func() toolcode.Engine { return quickjs.New() })
}

package quickjs_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when an execution leaves a goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

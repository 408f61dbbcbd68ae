package toolcode_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when an execution leaves a goroutine
// behind.
// The regular expressions' match timeout runs a process-wide clock of
// regexp2's, which ends a moment after the last match's deadline: it is
// not an execution's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

package quickjs_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leftBound is how long the package's tests wait, once they passed, for
// the goroutines of their executions to end. An execution abandoned at
// its deadline ends when QuickJS next checks for an interrupt, and a
// garbage collection of a program at its memory cap runs to its end
// first: seconds on a loaded machine, beyond goleak's own wait of about
// a second.
const leftBound = 20 * time.Second

// TestMain fails the package's tests when an execution leaves a goroutine
// behind for longer than leftBound.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(leftBound)
		err := goleak.Find()
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			err = goleak.Find()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left %s after the tests: %v\n", leftBound, err)
			code = 1
		}
	}
	os.Exit(code)
}

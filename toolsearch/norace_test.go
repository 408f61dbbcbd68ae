//go:build !race

package toolsearch_test

// raceEnabled says that the tests run under the race detector, whose
// instrumentation makes timings say nothing about the code timed.
const raceEnabled = false

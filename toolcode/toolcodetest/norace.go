//go:build !race

package toolcodetest

// raceSlowdown is 1 without the race detector: the bounds are as given.
const raceSlowdown = 1

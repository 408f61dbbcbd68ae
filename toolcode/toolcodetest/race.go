//go:build race

package toolcodetest

// raceSlowdown is how much looser the hostile suite's time bounds are
// under the race detector, which slows code down two to twenty times:
// the bounds hold the behaviour (a program is stopped, searches go on),
// and the figures of the README come from runs without it.
const raceSlowdown = 4

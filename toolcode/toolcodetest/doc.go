// Package toolcodetest holds the conformance suite of toolcode engines
// ([RunEngine], [RunEngineWithPrograms]) and [Fixture], a small real
// catalogue (a toolindex.MemoryIndex, a tooldocs.Store and a toolrun.Runner
// over local Go functions) to test programs against.
//
// Besides values, tool access, limits and errors, the suite runs
// [Programs.Cases], programs with the exact outcome each must have: the
// text of an uncaught value (see toolcode.Engine), the message of each bad
// argument of the functions of the tools (see toolcode.Dispatch), the
// defaults of the optional ones, the JSON of values that have none of
// their own, and what console.log prints. Two engines that pass it give
// a program the same outcome; [JavaScriptPrograms] holds the cases the
// JavaScript engines of this repository pass.
package toolcodetest

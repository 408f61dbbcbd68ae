// Package toolcodetest holds the conformance suite of toolcode engines
// ([RunEngine], [RunEngineWithPrograms]) and [Fixture], a small real
// catalogue (a toolindex.MemoryIndex, a tooldocs.Store and a toolrun.Runner
// over local Go functions) to test programs against.
package toolcodetest

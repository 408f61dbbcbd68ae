// Package probe is the probe engine of the toolruntime conformance suite
// (package toolruntimetest): an engine of language "probe" whose programs
// are commands it carries out for real in Go — read a file, open a
// connection, start processes, allocate, spin — as an engine escaped by a
// bug could. Run through a backend, it shows what the backend's boundary
// holds when the engine's does not.
//
// The command proberunner (toolruntimetest/proberunner) is [Main]: the
// runner with the JavaScript, TypeScript and probe engines. The package
// builds for GOOS=wasip1, where the commands that start processes report
// that they cannot.
package probe

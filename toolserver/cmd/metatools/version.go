package main

import (
	"runtime/debug"
	"strings"
	"sync"
)

// version returns the version of this binary, the one `metatools
// --version` prints and the server reports to MCP clients, so that both
// always agree. It is read once from the build information the go command
// stamps into the binary; see [versionOf].
var version = sync.OnceValue(func() string { return versionOf(debug.ReadBuildInfo()) })

// versionOf returns the version the build information tells: the main
// module's version (v1.2.0 when built by `go install ...@v1.2.0`, or a
// version the go command derived from the repository's tags and commit),
// else the revision of the source it was built from (its first 12
// characters, "+dirty" when the work tree had changes), else "devel", as
// for `go run` or a test binary.
func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	revision = strings.TrimSpace(revision)
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified {
		revision += "+dirty"
	}
	return revision
}

package toolmodel

import (
	"runtime/debug"
	"strings"
)

// DevelVersion is what [ModuleVersion] returns when the running binary
// does not record a version for the module.
const DevelVersion = "devel"

// ModuleVersion returns the version of the module that provides the
// package pkgPath in the running binary, as its build information records
// it: a tag such as "v1.2.0" or a pseudo-version for a dependency, the
// main module's version when the binary was built from it with one
// (go install module@version, or a VCS checkout), or, for the main module
// built from a checkout without one, the revision it was built from (its
// first 12 characters, "+dirty" when the work tree had changes). When
// none is recorded (go run, a test binary, a tree without version
// control), it returns [DevelVersion].
//
// The module is the one whose path is the longest prefix of pkgPath, so
// that a package keeps naming its own version when its folder becomes a
// module of its own. Components that announce a version, such as an MCP
// server's or client's implementation, use it with their own package
// path so that every part of one binary reports the same source of truth.
func ModuleVersion(pkgPath string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return DevelVersion
	}
	return moduleVersion(info, pkgPath)
}

// moduleVersion is [ModuleVersion] on given build information.
func moduleVersion(info *debug.BuildInfo, pkgPath string) string {
	best, version, main := -1, "", false
	consider := func(m *debug.Module) {
		if m == nil || !within(pkgPath, m.Path) || len(m.Path) <= best {
			return
		}
		best, version, main = len(m.Path), m.Version, m == &info.Main
		if m.Replace != nil && m.Replace.Version != "" {
			version = m.Replace.Version
		}
	}
	consider(&info.Main)
	for _, dep := range info.Deps {
		consider(dep)
	}
	if version == "" || version == "(devel)" {
		if main {
			return revision(info.Settings)
		}
		return DevelVersion
	}
	return version
}

// revision returns the VCS revision of the build settings, shortened, or
// [DevelVersion] when there is none.
func revision(settings []debug.BuildSetting) string {
	var rev string
	var modified bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = strings.TrimSpace(s.Value)
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return DevelVersion
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "+dirty"
	}
	return rev
}

// within reports whether pkgPath is the module path or a package under it.
func within(pkgPath, modPath string) bool {
	return modPath != "" && (pkgPath == modPath || strings.HasPrefix(pkgPath, modPath+"/"))
}

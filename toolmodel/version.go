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
// (go install module@version, or a VCS checkout). When none is recorded
// (a workspace or a source tree without version control), it returns
// [DevelVersion].
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
	best, version := -1, ""
	consider := func(m *debug.Module) {
		if m == nil || !within(pkgPath, m.Path) || len(m.Path) <= best {
			return
		}
		best, version = len(m.Path), m.Version
		if m.Replace != nil && m.Replace.Version != "" {
			version = m.Replace.Version
		}
	}
	consider(&info.Main)
	for _, dep := range info.Deps {
		consider(dep)
	}
	if version == "" || version == "(devel)" {
		return DevelVersion
	}
	return version
}

// within reports whether pkgPath is the module path or a package under it.
func within(pkgPath, modPath string) bool {
	return modPath != "" && (pkgPath == modPath || strings.HasPrefix(pkgPath, modPath+"/"))
}

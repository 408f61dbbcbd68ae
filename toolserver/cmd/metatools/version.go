package main

import (
	"sync"

	"github.com/metatools-go/metatools/toolmodel"
)

// version returns the version of this binary, the one `metatools
// --version` prints and the server reports to MCP clients, so that both
// always agree: its module's version as the go command stamped it into
// the binary (see [toolmodel.ModuleVersion]).
var version = sync.OnceValue(func() string {
	return toolmodel.ModuleVersion("github.com/metatools-go/metatools/toolserver/cmd/metatools")
})

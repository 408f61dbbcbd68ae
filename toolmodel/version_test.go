package toolmodel

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestModuleVersion(t *testing.T) {
	const prefix = "github.com/metatools-go/metatools/"
	info := &debug.BuildInfo{
		Main: debug.Module{Path: prefix + "toolserver", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: prefix + "toolrun", Version: "v0.3.0"},
			{Path: prefix + "toolrun/mcpexec", Version: "v0.4.1"},
			{Path: prefix + "toolindex", Version: "v0.0.0", Replace: &debug.Module{Path: "../toolindex"}},
			{Path: prefix + "tooldocs", Version: "v0.1.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.1.1"}},
		},
	}
	tests := []struct {
		pkg, want string
	}{
		{prefix + "toolserver", DevelVersion},
		{prefix + "toolserver/cmd/metatools", DevelVersion},
		{prefix + "toolrun", "v0.3.0"},
		{prefix + "toolrun/httpexec", "v0.3.0"},
		{prefix + "toolrun/mcpexec", "v0.4.1"},
		{prefix + "toolrun/mcpexecx", "v0.3.0"},
		{prefix + "toolindex", "v0.0.0"},
		{prefix + "tooldocs", "v0.1.1"},
		{prefix + "toolsearch", DevelVersion},
		{"", DevelVersion},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			assert.Equal(t, tt.want, moduleVersion(info, tt.pkg))
		})
	}
	info.Main.Version = "v1.2.0"
	assert.Equal(t, "v1.2.0", moduleVersion(info, prefix+"toolserver"), "the main module's own version")
	assert.NotEmpty(t, ModuleVersion(prefix+"toolmodel"))
}

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

	vcs := func(revision, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: revision}, {Key: "vcs.modified", Value: modified}}
	}
	info.Main.Version = "(devel)"
	info.Settings = vcs("0123456789abcdef0123", "false")
	assert.Equal(t, "0123456789ab", moduleVersion(info, prefix+"toolserver"), "the revision of a main module without a version")
	assert.Equal(t, DevelVersion, moduleVersion(info, prefix+"toolsearch"), "a revision is the main module's only")
	info.Settings = vcs("0123456789abcdef0123", "true")
	assert.Equal(t, "0123456789ab+dirty", moduleVersion(info, prefix+"toolserver/cmd/metatools"))
	info.Settings = vcs("abc", "false")
	assert.Equal(t, "abc", moduleVersion(info, prefix+"toolserver"))
	info.Settings = vcs("0123456789abcdef0123", "false")
	info.Main.Version = "v0.0.0-20260101000000-0123456789ab+dirty"
	assert.Equal(t, "v0.0.0-20260101000000-0123456789ab+dirty", moduleVersion(info, prefix+"toolserver"), "a version derived from the repository")
	assert.NotEmpty(t, ModuleVersion(prefix+"toolmodel"))
}

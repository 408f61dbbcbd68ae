package config_test

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

func TestIdempotentForms(t *testing.T) {
	tests := []struct {
		value string
		want  config.ToolPatterns
	}{
		{"true", config.ToolPatterns{"*"}},
		{"false", nil},
		{"~", nil},
		{"get_*", config.ToolPatterns{"get_*"}},
		{"'true'", config.ToolPatterns{"true"}},
		{"[get_*, search, 'list_[ab]?']", config.ToolPatterns{"get_*", "search", "list_[ab]?"}},
		{"[]", config.ToolPatterns{}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			doc := "mcpServers: [{name: a, command: x, idempotent: " + tt.value + "}]\n" +
				"openapi: [{name: o, spec: s.yaml, idempotent: " + tt.value + "}]\n" +
				"grpc: [{name: g, address: 'h:1', idempotent: " + tt.value + "}]\n"
			cfg, err := config.Parse([]byte(doc))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.MCPServers[0].Idempotent)
			assert.Equal(t, tt.want, cfg.OpenAPI[0].Idempotent)
			assert.Equal(t, tt.want, cfg.GRPC[0].Idempotent)
		})
	}
	cfg, err := config.Parse([]byte("mcpServers: [{name: a, command: x}]"))
	require.NoError(t, err)
	assert.Nil(t, cfg.MCPServers[0].Idempotent, "no tool is declared idempotent by default")
}

func TestIdempotentErrors(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"namespace", "'fs:read'", `mcpServers[0].idempotent[0]: "fs:read": byte ':' at offset 2`},
		{"space", "['get x']", `mcpServers[0].idempotent[0]: "get x": byte ' '`},
		{"empty", "['']", `mcpServers[0].idempotent[0]: "": empty`},
		{"bad glob", "'get_[a'", `mcpServers[0].idempotent[0]: "get_[a": not a valid glob`},
		{"a map", "{a: b}", "expected true, false, a tool pattern or a list of them"},
		{"a list of lists", "[[a]]", "a tool pattern is a string"},
		{"a null item", "[a, ~]", "a tool pattern is a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("mcpServers: [{name: a, command: x, idempotent: " + tt.value + "}]"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}

// FuzzIdempotent parses any value of an upstream's idempotent setting:
// it is refused with code invalid_argument, or gives patterns that are
// valid globs holding no namespace.
func FuzzIdempotent(f *testing.F) {
	for _, seed := range []string{"true", "false", "get_*", "[a, 'b*', 'c[0-9]']", "'x:y'", "[[a]]", "{a: b}", "'[^a]'", "'\\\\'", "&a [*a]"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		cfg, err := config.Parse([]byte("mcpServers: [{name: a, command: x, idempotent: " + value + "}]"))
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("error of code %s: %v", errors.CodeOf(err), err)
			}
			return
		}
		if len(cfg.MCPServers) != 1 {
			return // the value ended the flow sequence: another document
		}
		for _, pattern := range cfg.MCPServers[0].Idempotent {
			if _, err := path.Match(pattern, "name"); err != nil || pattern == "" {
				t.Fatalf("accepted pattern %q: %v", pattern, err)
			}
			for i := 0; i < len(pattern); i++ {
				if pattern[i] == ':' || pattern[i] == '/' {
					t.Fatalf("accepted pattern %q holds %q", pattern, pattern[i])
				}
			}
		}
	})
}

package config

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StderrMode says what becomes of the standard error of an MCP server
// started as a command, beyond its last lines, which metatools always
// keeps and quotes in the errors of failed connections and calls.
type StderrMode string

// The modes of [StderrMode].
const (
	// StderrDefault, the empty mode, is StderrQuiet unless the server is
	// run with its upstreams' standard error shown (metatools serve
	// --log-level debug): then StderrStream.
	StderrDefault StderrMode = ""
	// StderrQuiet keeps the last lines only.
	StderrQuiet StderrMode = "quiet"
	// StderrLog logs each line, at level info, with the server's name.
	StderrLog StderrMode = "log"
	// StderrStream writes each line to metatools' own standard error,
	// prefixed by the server's name in brackets.
	StderrStream StderrMode = "stream"
)

// UnmarshalYAML decodes a mode, refusing unknown ones; an empty one is
// the default.
func (m *StderrMode) UnmarshalYAML(n *yaml.Node) error {
	switch mode := StderrMode(n.Value); {
	case n.Kind != yaml.ScalarNode:
		return fmt.Errorf("line %d: stderr is quiet, log or stream", n.Line)
	case mode == StderrDefault || mode == StderrQuiet || mode == StderrLog || mode == StderrStream:
		*m = mode
		return nil
	default:
		return fmt.Errorf("line %d: stderr %q is not quiet, log or stream", n.Line, n.Value)
	}
}

// validateProcess reports the problems of the settings of an MCP server
// that concern the process it runs, or the time it may take to connect.
func validateProcess(where string, s MCPServer, add func(format string, args ...any)) {
	if s.ConnectTimeout < 0 {
		add("%s.connectTimeout must not be negative", where)
	}
	if s.Command == "" && (len(s.InheritEnv) > 0 || s.Stderr != StderrDefault) {
		add("%s: inheritEnv and stderr apply to a server started as a command", where)
	}
	for _, pattern := range s.InheritEnv {
		name := strings.TrimSuffix(pattern, "*")
		if pattern == "" || strings.ContainsAny(name, "=*\x00") {
			add("%s.inheritEnv %q: a variable name, or a prefix followed by *, such as AWS_*", where, pattern)
		}
	}
}

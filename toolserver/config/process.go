package config

import (
	"strings"
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

// validateProcess reports the problems of the settings of an MCP server
// that concern the process it runs, or the time it may take to connect.
func validateProcess(at keyPath, s MCPServer, add func(at keyPath, format string, args ...any)) {
	if s.ConnectTimeout < 0 {
		add(at.with("connectTimeout"), "must not be negative")
	}
	switch s.Stderr {
	case StderrDefault, StderrQuiet, StderrLog, StderrStream:
	default:
		add(at.with("stderr"), "%q is not quiet, log or stream", string(s.Stderr))
	}
	if s.Command == "" {
		if len(s.InheritEnv) > 0 {
			add(at.with("inheritEnv"), "applies to a server started by a command, not to one reached at a url")
		}
		if s.Stderr != StderrDefault {
			add(at.with("stderr"), "applies to a server started by a command, not to one reached at a url")
		}
	}
	for i, pattern := range s.InheritEnv {
		name := strings.TrimSuffix(pattern, "*")
		if pattern == "" || strings.ContainsAny(name, "=*\x00") {
			add(at.with("inheritEnv", i), "%q: a variable name, or a prefix followed by *, such as AWS_*", pattern)
		}
	}
}

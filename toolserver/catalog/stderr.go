package catalog

import (
	"io"
	"os"
	"sync"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolserver/config"
)

// upstreamStderr is where the standard error of the MCP servers started
// as commands goes, when it is streamed: one writer for all of them,
// written one line at a time.
type upstreamStderr struct {
	// w receives the lines; all reports that it was given
	// (WithUpstreamStderr), which streams the servers whose mode is the
	// default.
	w   io.Writer
	all bool
	mu  sync.Mutex
}

func newUpstreamStderr(w io.Writer) *upstreamStderr {
	if w == nil {
		return &upstreamStderr{w: os.Stderr}
	}
	return &upstreamStderr{w: w, all: true}
}

// prefixed writes the lines of one server, prefixed by its name in
// brackets. The session manager writes each line in one call.
type prefixed struct {
	to     *upstreamStderr
	prefix []byte
}

func (p prefixed) Write(line []byte) (int, error) {
	out := make([]byte, 0, len(p.prefix)+len(line))
	out = append(append(out, p.prefix...), line...)
	p.to.mu.Lock()
	defer p.to.mu.Unlock()
	if _, err := p.to.w.Write(out); err != nil {
		return 0, err
	}
	return len(line), nil
}

// mcpConfig returns the session manager's configuration of a server. The
// settings of the process are given to servers started as commands only:
// the session manager refuses them on a URL server.
func mcpConfig(s config.MCPServer, stderr *upstreamStderr) mcpexec.ServerConfig {
	cfg := mcpexec.ServerConfig{
		Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Dir,
		URL: s.URL, Headers: s.Headers,
		ConnectTimeout: toolmodel.Duration(s.ConnectTimeout),
	}
	if s.Command == "" {
		return cfg
	}
	cfg.InheritEnv = s.InheritEnv
	switch {
	case s.Stderr == config.StderrLog:
		cfg.LogStderr = true
	case s.Stderr == config.StderrStream, s.Stderr == config.StderrDefault && stderr.all:
		cfg.Stderr = prefixed{to: stderr, prefix: []byte("[" + s.Name + "] ")}
	}
	return cfg
}

package mcpexec

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PackageRunnerConnectTimeout is the budget of the first connection to a
// server started through a package runner (npx, pnpx, bunx, uvx, pipx),
// when the connect timeout is shorter and the server sets none of its own
// ([ServerConfig.ConnectTimeout]): the first start may download and
// install the server, which takes a minute or more, where later starts
// take a second. Once the server has connected, the connect timeout
// applies again.
const PackageRunnerConnectTimeout = 2 * time.Minute

// WithConnectTimeoutSettings names, in the error of a connection attempt
// that ran out of time, the settings that raise the bound, for programs
// whose users configure the manager through settings of their own: the
// one that sets [WithConnectTimeout] for every server (such as
// "limits.connectTimeout"), and the one that sets a server's own
// [ServerConfig.ConnectTimeout] (such as "connectTimeout"). By default
// the error names these two.
func WithConnectTimeoutSettings(global, own string) Option {
	return func(o *options) { o.globalTimeoutSetting, o.ownTimeoutSetting = global, own }
}

// timeoutSettings returns the names of the connect timeout settings.
func (o *options) timeoutSettings() (global, own string) {
	global, own = o.globalTimeoutSetting, o.ownTimeoutSetting
	if global == "" {
		global = "mcpexec.WithConnectTimeout"
	}
	if own == "" {
		own = "ServerConfig.ConnectTimeout"
	}
	return global, own
}

// stderrGrace is how long closing a process waits, once the process has
// exited, for the end of its standard error: a child of the process that
// still holds it open does not keep the manager waiting longer.
const stderrGrace = time.Second

// packageRunner returns the name of the package runner a command is, or
// "" when it is none: the runners that fetch the package they run on
// first use.
func packageRunner(command string) string {
	// Either separator: a configuration written for Windows names
	// runners as C:\...\npx.cmd.
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	for _, ext := range []string{".exe", ".cmd", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	switch base {
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		return base
	}
	return ""
}

// inheritedNames are the variables of the current process that every
// command server gets: where programs are and where the user's files
// are, who the user is, the locale and time zone, the terminal, the
// temporary directory, proxies and certificate authorities, and the
// variables Windows programs need to run at all.
var inheritedNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	// Windows.
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP",
	"USERPROFILE", "USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
	"ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "CommonProgramFiles",
	"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS", "OS",
}

// inheritedPrefixes are the prefixes of the other variables every command
// server gets: the locale's categories, the XDG base directories, and the
// settings of the package runners that start servers (npm's for npx, uv's
// for uvx, pip's and pipx's).
var inheritedPrefixes = []string{"LC_", "XDG_", "npm_config_", "NPM_CONFIG_", "UV_", "PIP_", "PIPX_"}

// environ returns the environment of a command server, from parent (the
// current process's, as os.Environ returns it): the variables every
// server inherits, those InheritEnv names, and Env on top. Names compare
// without regard to case on Windows, as Windows does.
func (c *ServerConfig) environ(parent []string, goos string) []string {
	fold := goos == "windows"
	same := func(a, b string) bool { return a == b || fold && strings.EqualFold(a, b) }
	hasPrefix := func(s, prefix string) bool {
		return len(s) >= len(prefix) && same(s[:len(prefix)], prefix)
	}
	inherits := func(name string) bool {
		if slices.ContainsFunc(inheritedNames, func(n string) bool { return same(n, name) }) ||
			slices.ContainsFunc(inheritedPrefixes, func(p string) bool { return hasPrefix(name, p) }) {
			return true
		}
		for _, pattern := range c.InheritEnv {
			if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
				if hasPrefix(name, prefix) {
					return true
				}
			} else if same(pattern, name) {
				return true
			}
		}
		return false
	}
	env := make([]string, 0, len(c.Env)+16)
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !inherits(name) {
			continue
		}
		if slices.ContainsFunc(sortedKeys(c.Env), func(k string) bool { return same(k, name) }) {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range sortedKeys(c.Env) {
		env = append(env, k+"="+c.Env[k])
	}
	return env
}

// validInheritEnv reports what is wrong with a pattern of InheritEnv, or
// "".
func validInheritEnv(pattern string) string {
	name := strings.TrimSuffix(pattern, "*")
	switch {
	case pattern == "":
		return "empty"
	case strings.ContainsAny(name, "=*\x00"):
		return "a pattern is a variable name, or a prefix followed by *, without '=' or NUL"
	}
	return ""
}

// process is the transport of a command server. It starts the command
// through the SDK's CommandTransport, keeps the last lines of its
// standard error, passing each line on to the server's receivers, and
// notes whether the process ended before it was closed: a crash.
type process struct {
	s         *server
	transport *mcp.CommandTransport
	tail      *stderrTail

	stderr     *os.File      // the reading end of the standard error pipe
	stderrDone chan struct{} // closed once the standard error is read to its end

	closing     atomic.Bool // closing was asked for
	ended       atomic.Bool // the process stopped answering before closing was asked for
	established atomic.Bool // the MCP session was opened

	closeOnce sync.Once
	closeErr  error
	closed    chan struct{} // closed once the process is closed
}

var _ mcp.Transport = (*process)(nil)

// newProcess returns the transport of a new process of the server.
func (s *server) newProcess() *process {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = s.cfg.environ(os.Environ(), runtime.GOOS)
	terminate := s.m.opts.terminate
	if s.cfg.TerminateTimeout > 0 {
		terminate = time.Duration(s.cfg.TerminateTimeout)
	}
	return &process{
		s:          s,
		transport:  &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate},
		tail:       newStderrTail(s.stderrLine, stderrRedaction(s.redact)),
		stderrDone: make(chan struct{}),
		closed:     make(chan struct{}),
	}
}

// Connect starts the process, with its standard error on a pipe of its
// own that a goroutine reads to its end.
func (p *process) Connect(ctx context.Context) (mcp.Connection, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("standard error pipe: %w", err)
	}
	p.stderr = r
	p.transport.Command.Stderr = w
	p.s.m.wg.Add(1)
	go p.readStderr()
	conn, err := p.transport.Connect(ctx)
	// The child has its own copy: without ours, the pipe ends when the
	// child (and any child of its own) is gone.
	_ = w.Close()
	if err != nil {
		// The process did not start: nobody else holds the pipe.
		<-p.stderrDone
		_ = r.Close()
		p.closeOnce.Do(func() { close(p.closed) })
		return nil, err
	}
	return &processConn{Connection: conn, p: p}, nil
}

// readStderr reads the process's standard error into its tail until the
// pipe ends or is closed.
func (p *process) readStderr() {
	defer p.s.m.wg.Done()
	defer close(p.stderrDone)
	_, _ = io.Copy(p.tail, p.stderr)
	p.tail.Flush()
}

// close closes the connection to the process, which ends it (see
// mcp.CommandTransport), then finishes reading its standard error and
// reports a crash to the server. It returns the error of ending the
// process, such as its exit status; calling it again returns the same.
func (p *process) close(conn mcp.Connection) error {
	p.closeOnce.Do(func() {
		defer close(p.closed)
		p.closing.Store(true)
		p.closeErr = conn.Close()
		select {
		case <-p.stderrDone:
		case <-time.After(stderrGrace):
		}
		_ = p.stderr.Close()
		<-p.stderrDone
		if p.ended.Load() && p.established.Load() {
			p.s.processEnded(p, p.closeErr)
		}
	})
	<-p.closed
	return p.closeErr
}

// stderrSummary returns the last lines of the process's standard error,
// on one line. When the process ended by itself, it first waits, for a
// short while, for the process to be closed, so that its last lines have
// been read.
func (p *process) stderrSummary() string {
	if p.ended.Load() {
		select {
		case <-p.closed:
		case <-time.After(stderrGrace):
		}
	}
	return p.tail.summary(errorTailLines)
}

// processConn is the connection to a process: the SDK's, noting when the
// process stops answering before it is closed.
type processConn struct {
	mcp.Connection
	p *process
}

func (c *processConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil && ctx.Err() == nil && !c.p.closing.Load() {
		c.p.ended.Store(true)
	}
	return msg, err
}

func (c *processConn) Close() error { return c.p.close(c.Connection) }

// withStderr returns err followed by the last lines of standard error, if
// any.
func withStderr(err error, stderr string) error {
	if stderr == "" {
		return err
	}
	return fmt.Errorf("%w; stderr: %s", err, stderr)
}

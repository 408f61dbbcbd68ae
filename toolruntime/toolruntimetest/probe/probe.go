package probe

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Language is the language of the probe engine.
const Language = "probe"

// Flags of a runner built with [Main] (the command proberunner): the
// probe starts the runner's own executable with one of them, so that a
// process it starts exists in every sandbox that can run the runner.
const (
	// FlagExit makes the runner exit at once with status 0.
	FlagExit = "-probe-exit"
	// FlagSleep makes the runner sleep a minute; the argument after it is
	// a token the suite looks for among the machine's processes.
	FlagSleep = "-probe-sleep"
)

// maxProbeValue bounds what a probe returns of a file it read.
const maxProbeValue = 4 << 10

// New returns the engine of language "probe": instead of running
// code in an interpreter, it does for real, in Go, what an engine escaped
// by a bug could do, so that the suite checks what the backend's boundary
// holds when the engine's does not.
//
// A program is one command per line; the value is the outcome of the
// command ({"op", "ok", "value", "error"}), or the array of the outcomes
// when there are several. An operation the sandbox refuses is an outcome
// with ok false, not an error: the suite judges it. The commands:
//
//	pid                 the process ID of the process running the probe
//	read PATH           read a file (the first 4 KiB)
//	write PATH TEXT     create or truncate a file and write TEXT
//	connect HOST:PORT   open a TCP connection and write a line
//	env NAME            read an environment variable
//	setenv NAME VALUE   set an environment variable of the process
//	exec                start the runner's own executable (FlagExit) and wait
//	fork N TOKEN        start N processes (FlagSleep TOKEN), wait for none
//	alloc BYTES         allocate BYTES and touch every page
//	spin                loop forever, deaf to the context
//	recurse             recurse without end
//	print BYTES         write BYTES to the raw standard output (fd 1)
//	log N BYTES         log N lines of BYTES through the gateway
//	call N TOOL         call TOOL N times with no arguments
//
// The gateway's errors (log, call) end the program with their codes, as an
// uncaught error does in JavaScript. A malformed program fails with code
// [errors.InvalidArgument]. Where an operation does not exist (exec and
// fork on wasip1) its outcome says so.
func New() toolcode.Engine { return probeEngine{} }

type probeEngine struct{}

func (probeEngine) Language() string { return Language }

// Outcome is what one probe command got.
type Outcome struct {
	// Op is the command's name.
	Op string `json:"op"`
	// OK reports that the operation succeeded.
	OK bool `json:"ok"`
	// Value is what it got: a file's text, a variable's value, a count.
	Value any `json:"value,omitempty"`
	// Error is why it failed.
	Error string `json:"error,omitempty"`
}

// command is one parsed line of a probe program.
type command struct {
	op   string
	args []string
	n    int64 // the numeric argument, where there is one
	m    int64 // the second numeric argument (log)
}

// arity gives each command's number of arguments and which are numbers.
var arity = map[string]struct {
	args    int
	numeric []int // indexes of numeric arguments
	rest    bool  // the last argument takes the rest of the line
}{
	"pid": {0, nil, false}, "read": {1, nil, false}, "write": {2, nil, true},
	"connect": {1, nil, false}, "env": {1, nil, false}, "setenv": {2, nil, true}, "exec": {0, nil, false},
	"fork": {2, []int{0}, false}, "alloc": {1, []int{0}, false}, "spin": {0, nil, false},
	"recurse": {0, nil, false}, "print": {1, []int{0}, false}, "log": {2, []int{0, 1}, false},
	"call": {2, []int{0}, false}, "files": {0, nil, false}, "uid": {0, nil, false},
}

// parseProbe parses a probe program, failing with code
// [errors.InvalidArgument] on an unknown command, a wrong number of
// arguments or a malformed number.
func parseProbe(code string) ([]command, error) {
	var out []command
	for i, line := range strings.Split(code, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, rest, _ := strings.Cut(line, " ")
		spec, ok := arity[op]
		if !ok {
			return nil, errors.Errorf(errors.InvalidArgument, "probe line %d: unknown command %q", i+1, op)
		}
		var args []string
		if spec.rest && spec.args > 0 {
			args = strings.SplitN(strings.TrimSpace(rest), " ", spec.args)
		} else {
			args = strings.Fields(rest)
		}
		if len(args) == 1 && args[0] == "" {
			args = nil
		}
		if len(args) != spec.args {
			return nil, errors.Errorf(errors.InvalidArgument, "probe line %d: %s takes %d argument(s), got %d", i+1, op, spec.args, len(args))
		}
		c := command{op: op, args: args}
		for j, idx := range spec.numeric {
			v, err := strconv.ParseInt(args[idx], 10, 64)
			if err != nil || v < 0 {
				return nil, errors.Errorf(errors.InvalidArgument, "probe line %d: %s: %q is not a count", i+1, op, args[idx])
			}
			if j == 0 {
				c.n = v
			} else {
				c.m = v
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "probe: empty program")
	}
	return out, nil
}

func (probeEngine) Execute(ctx context.Context, prog toolcode.Program) (json.RawMessage, error) {
	cmds, err := parseProbe(prog.Code)
	if err != nil {
		return nil, err
	}
	outs := make([]Outcome, 0, len(cmds))
	for _, c := range cmds {
		o, err := run(ctx, c, prog.Tools)
		if err != nil {
			return nil, err
		}
		outs = append(outs, o)
	}
	var v any = outs
	if len(outs) == 1 {
		v = outs[0]
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "probe: encode outcome: %v", err)
	}
	return b, nil
}

// run does one command; an error is the gateway's and ends the program.
func run(ctx context.Context, c command, tools toolcode.Tools) (Outcome, error) {
	o := Outcome{Op: c.op}
	fail := func(err error) (Outcome, error) {
		o.Error = err.Error()
		return o, nil
	}
	switch c.op {
	case "pid":
		o.Value = os.Getpid()
	case "uid":
		o.Value = []int{os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid()}
	case "files":
		files, err := openFiles()
		if err != nil {
			return fail(err)
		}
		o.Value = files
	case "read":
		b, err := os.ReadFile(c.args[0])
		if err != nil {
			return fail(err)
		}
		o.Value = string(b[:min(len(b), maxProbeValue)])
	case "write":
		if err := os.WriteFile(c.args[0], []byte(c.args[1]), 0o600); err != nil {
			return fail(err)
		}
	case "connect":
		d := net.Dialer{Timeout: 5 * time.Second}
		conn, err := d.DialContext(ctx, "tcp", c.args[0])
		if err != nil {
			return fail(err)
		}
		_, err = conn.Write([]byte("probe\n"))
		_ = conn.Close()
		if err != nil {
			return fail(err)
		}
		o.Value = "connected"
	case "env":
		v, ok := os.LookupEnv(c.args[0])
		if !ok {
			return fail(errors.Errorf(errors.NotFound, "%s is not set", c.args[0]))
		}
		o.Value = v
	case "setenv":
		if err := os.Setenv(c.args[0], c.args[1]); err != nil {
			return fail(err)
		}
	case "exec":
		code, err := startSelf()
		if err != nil {
			return fail(err)
		}
		o.Value = code
	case "fork":
		started, err := forkSelf(int(c.n), c.args[1])
		o.Value = started
		if err != nil {
			return fail(err)
		}
	case "alloc":
		o.Value = alloc(c.n)
	case "spin":
		spin()
	case "recurse":
		o.Value = recurse(0)
	case "print":
		n, err := printRaw(c.n)
		o.Value = n
		if err != nil {
			return fail(err)
		}
	case "log":
		line := strings.Repeat("x", int(min(c.m, 1<<20)))
		for range c.n {
			if err := tools.Log(ctx, line); err != nil {
				return o, err
			}
		}
		o.Value = c.n
	case "call":
		for range c.n {
			if _, err := tools.Run(ctx, c.args[1], map[string]any{}); err != nil {
				return o, err
			}
		}
		o.Value = c.n
	}
	o.OK = true
	return o, nil
}

// alloc allocates n bytes and writes every page, so that the memory is
// really used, not only reserved.
func alloc(n int64) int64 {
	var chunks [][]byte
	const chunk = 1 << 20
	var total int64
	for total < n {
		b := make([]byte, min(chunk, n-total))
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		chunks = append(chunks, b)
		total += int64(len(b))
	}
	runtime.KeepAlive(chunks)
	return total
}

// spins keeps the loop of spin from being optimised away.
var spins atomic.Int64

// spin loops forever and never looks at a context: only the backend can
// stop it.
func spin() {
	for {
		spins.Add(1)
	}
}

// recurse recurses until the stack gives out; the frame is large so that
// it gives out soon.
func recurse(n int) int {
	if n < 0 { // never: n only grows, until the stack gives out
		return 0
	}
	var pad [512]byte
	pad[n%len(pad)] = byte(n)
	return recurse(n+1) + int(pad[(n+1)%len(pad)])
}

// printRaw writes n bytes, and no newline, to file descriptor 1, around
// whatever the runner made of os.Stdout.
func printRaw(n int64) (int64, error) {
	out := os.NewFile(1, "stdout")
	buf := []byte(strings.Repeat("x", 64<<10))
	var done int64
	for done < n {
		w, err := out.Write(buf[:min(int64(len(buf)), n-done)])
		done += int64(w)
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// openFiles returns what the descriptors above standard error of the
// process refer to (a file's path, "pipe:[...]", "anon_inode:..."), as
// /proc/self/fd says, but the directory read to list them.
func openFiles() ([]string, error) {
	dir, err := os.Open("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	files := []string{}
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil || fd <= 2 || uintptr(fd) == dir.Fd() {
			continue
		}
		if target, err := os.Readlink("/proc/self/fd/" + name); err == nil {
			files = append(files, target)
		}
	}
	return files, nil
}

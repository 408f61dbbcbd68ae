package mcpexec

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// referenceLines splits a whole stream the way stderrTail does, byte by
// byte: lines end at a newline, or when they reach stderrPieceBytes and
// more follows; a last line without a newline ends the stream.
func referenceLines(data []byte) [][]byte {
	var lines [][]byte
	var cur []byte
	for _, c := range data {
		if c == '\n' {
			lines = append(lines, bytes.TrimSuffix(cur, []byte("\r")))
			cur = nil
			continue
		}
		if len(cur) == stderrPieceBytes {
			lines = append(lines, bytes.TrimSuffix(cur, []byte("\r")))
			cur = nil
		}
		cur = append(cur, c)
	}
	if len(cur) > 0 {
		lines = append(lines, bytes.TrimSuffix(cur, []byte("\r")))
	}
	return lines
}

// referenceTail keeps the cleaned, non-blank lines within the bounds.
func referenceTail(lines [][]byte) []string {
	var kept []string
	size := 0
	for _, l := range lines {
		c := cutLine(cleanLine(l))
		if strings.TrimSpace(c) == "" {
			continue
		}
		kept = append(kept, c)
		size += len(c)
		for len(kept) > stderrTailLines || size > stderrTailBytes {
			size -= len(kept[0])
			kept = kept[1:]
		}
	}
	return kept
}

// feed writes data to a new tail redacting with redact in chunks whose
// sizes cuts gives, and returns the tail and the lines it passed on.
func feed(data, cuts []byte, redact func(string) string) (*stderrTail, [][]byte) {
	var got [][]byte
	tail := newStderrTail(func(line []byte) { got = append(got, line) }, redact)
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(cuts) > 0 {
			n = min(n, 1+int(cuts[i%len(cuts)])*17)
		}
		_, _ = tail.Write(data[:n])
		data = data[n:]
	}
	tail.Flush()
	return tail, got
}

func TestStderrTail(t *testing.T) {
	long := strings.Repeat("x", stderrPieceBytes+10)
	cases := []struct {
		name   string
		writes []string
		lines  []string // passed on
		kept   []string
	}{
		{name: "lines across writes", writes: []string{"fir", "st\nsec", "ond\n"},
			lines: []string{"first", "second"}, kept: []string{"first", "second"}},
		{name: "a last line without newline", writes: []string{"a\nfatal: no key"},
			lines: []string{"a", "fatal: no key"}, kept: []string{"a", "fatal: no key"}},
		{name: "CRLF, colours and blank lines", writes: []string{"\x1b[1;31merror\x1b[0m: bad\r\n\r\n  \n\x07bell\n"},
			lines: []string{"\x1b[1;31merror\x1b[0m: bad", "", "  ", "\x07bell"}, kept: []string{"error: bad", "bell"}},
		{name: "invalid UTF-8", writes: []string{"caf\xe9\n"}, lines: []string{"caf\xe9"}, kept: []string{"caf\uFFFD"}},
		{name: "a line too long comes in pieces, kept cut", writes: []string{long + "\n"},
			lines: []string{long[:stderrPieceBytes], long[stderrPieceBytes:]},
			kept:  []string{long[:stderrLineBytes-len("…")] + "…", "xxxxxxxxxx"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tail := newStderrTail(func(line []byte) { got = append(got, string(line)) }, nil)
			for _, w := range tc.writes {
				n, err := tail.Write([]byte(w))
				require.NoError(t, err)
				assert.Equal(t, len(w), n)
			}
			tail.Flush()
			assert.Equal(t, tc.lines, got)
			assert.Equal(t, tc.kept, tail.Lines(stderrTailLines))
		})
	}
}

func TestStderrTailRedactsTheSecretsOfTheProcess(t *testing.T) {
	redact := stderrRedaction(toolrun.NewRedactor(toolrun.ProcessSecrets(
		[]string{"SERVICE_API_KEY=sk-test-0123456789", "XDG_SESSION_CLASS=user"},
		[]string{"--token", "tok-abcdefgh"},
	)))
	var got []string
	tail := newStderrTail(func(line []byte) { got = append(got, string(line)) }, redact)
	long := strings.Repeat("x", stderrLineBytes-5) + "sk-test-0123456789 and more"
	_, _ = tail.Write([]byte(strings.Join([]string{
		"fatal: key sk-test-0123456789 rejected",
		`config: {"token":"tok-abcdefgh"}`,
		"GET /v1 Authorization: Bearer someone-elses-token",
		"user not found",
		"sk-test-\x1b[1m0123456789",
		long,
	}, "\n") + "\n"))
	// The lines as they are passed on and kept differ only where the
	// cleaning changes them.
	plain := []string{"fatal: key *** rejected", `config: {"token":"***"}`, "GET /v1 Authorization: Bearer ***", "user not found"}
	tailOf := strings.Repeat("x", stderrLineBytes-5) + "*** and more"
	assert.Equal(t, append(slices.Clone(plain), "sk-test-\x1b[1m0123456789", tailOf), got,
		"the lines passed on, as written but for their secrets")
	assert.Equal(t, append(slices.Clone(plain), "***", cutLine(tailOf)),
		tail.Lines(stderrTailLines), "the lines kept: redacted once cleaned, before they are cut")
}

// FuzzStderrTailRedacts checks that a secret never reaches the receiver
// or the lines kept, however the stream is written and cut.
func FuzzStderrTailRedacts(f *testing.F) {
	f.Add([]byte("fatal: key sk0123456789 rejected\n"), []byte{0, 3, 1}, "sk0123456789")
	f.Add([]byte("sk01\x1b[0m23456789\x07\n"+strings.Repeat("y", stderrPieceBytes-3)+"sk0123456789"), []byte{255, 7}, "sk0123456789")
	f.Add([]byte("aaaaaaaaa\nBearer aaaa"), []byte(nil), "aaaa")
	f.Fuzz(func(t *testing.T, data, cuts []byte, secret string) {
		// Secrets worth the name: letters and digits, long enough to be
		// searched for.
		if len(secret) < toolrun.MinSecretLen || strings.ContainsFunc(secret, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			return
		}
		tail, got := feed(data, cuts, stderrRedaction(toolrun.NewRedactor([]string{secret})))
		for _, l := range got {
			require.NotContains(t, string(l), secret)
		}
		for _, l := range tail.Lines(stderrTailLines) {
			require.NotContains(t, l, secret)
			assert.True(t, utf8.ValidString(l))
			assert.LessOrEqual(t, len(l), stderrLineBytes)
		}
	})
}

func TestStderrTailKeepsTheLastLinesWithinItsBounds(t *testing.T) {
	tail := newStderrTail(nil, nil)
	for i := range 30 {
		_, _ = tail.Write([]byte(strings.Repeat("a", i) + "!\n"))
	}
	lines := tail.Lines(stderrTailLines)
	require.Len(t, lines, stderrTailLines)
	assert.Equal(t, strings.Repeat("a", 29)+"!", lines[len(lines)-1])
	assert.Equal(t, []string{strings.Repeat("a", 28) + "!", strings.Repeat("a", 29) + "!"}, tail.Lines(2))
	assert.Equal(t, strings.Repeat("a", 28)+"! | "+strings.Repeat("a", 29)+"!", tail.summary(2))

	// Long lines: the byte bound keeps fewer of them.
	for range 30 {
		_, _ = tail.Write([]byte(strings.Repeat("b", 1000) + "\n"))
	}
	lines = tail.Lines(stderrTailLines)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	assert.LessOrEqual(t, size, stderrTailBytes)
	assert.Len(t, lines, stderrTailBytes/stderrLineBytes)
}

func TestStderrTailIsSafeForConcurrentUse(t *testing.T) {
	tail := newStderrTail(nil, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				_, _ = tail.Write([]byte("line\n"))
				_ = tail.Lines(errorTailLines)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, []string{"line", "line"}, tail.Lines(2))
}

func FuzzStderrTail(f *testing.F) {
	f.Add([]byte("starting\r\n\x1b[31mfatal:\x1b[0m missing API key"), []byte{0, 3, 1})
	f.Add([]byte(strings.Repeat("y", stderrPieceBytes)+"\n"+strings.Repeat("z", 2*stderrPieceBytes+1)), []byte{255, 7})
	f.Add([]byte("\x1b[\n\x1b\n\xff\xfe\t\n\n"), []byte(nil))
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		tail, got := feed(data, cuts, nil)
		want := referenceLines(data)
		require.Len(t, got, len(want), "however the stream is cut into writes, it gives the same lines")
		for i := range want {
			require.Equal(t, string(want[i]), string(got[i]), "line %d", i)
		}
		kept := tail.Lines(stderrTailLines)
		assert.Equal(t, append([]string{}, referenceTail(want)...), append([]string{}, kept...))
		size := 0
		for _, l := range kept {
			size += len(l)
			assert.LessOrEqual(t, len(l), stderrLineBytes)
			assert.True(t, utf8.ValidString(l))
			assert.False(t, strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }), "line %q", l)
		}
		assert.LessOrEqual(t, size, stderrTailBytes)
		assert.LessOrEqual(t, len(kept), stderrTailLines)
	})
}

func TestPackageRunner(t *testing.T) {
	cases := map[string]string{
		"npx": "npx", "/usr/local/bin/npx": "npx", `C:\Program Files\nodejs\npx.cmd`: "npx", "NPX.EXE": "npx",
		"uvx": "uvx", "pipx": "pipx", "bunx": "bunx", "pnpx": "pnpx",
		"node": "", "github-mcp": "", "npx-server": "", "": "",
	}
	for command, want := range cases {
		assert.Equal(t, want, packageRunner(command), "command %q", command)
	}
}

func TestConnectBudget(t *testing.T) {
	m := &Manager{opts: options{connectTimeout: 30 * time.Second}}
	cases := []struct {
		name      string
		cfg       ServerConfig
		connected bool
		timeout   time.Duration
		explain   string
	}{
		{name: "a command", cfg: ServerConfig{Command: "github-mcp"}, timeout: 30 * time.Second,
			explain: "no answer within 30s; raise mcpexec.WithConnectTimeout, or set the server's ServerConfig.ConnectTimeout"},
		{name: "the first start through npx", cfg: ServerConfig{Command: "npx"}, timeout: PackageRunnerConnectTimeout,
			explain: "no answer within 2m0s, the budget of a first start through npx; set the server's ServerConfig.ConnectTimeout to wait longer"},
		{name: "npx once connected", cfg: ServerConfig{Command: "npx"}, connected: true, timeout: 30 * time.Second},
		{name: "the server's own bound wins", cfg: ServerConfig{Command: "uvx", ConnectTimeout: toolmodel.Duration(5 * time.Second)}, timeout: 5 * time.Second,
			explain: "no answer within 5s; raise the server's ServerConfig.ConnectTimeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &server{m: m, cfg: tc.cfg, connectedOnce: tc.connected}
			b := s.connectBudget()
			assert.Equal(t, tc.timeout, b.timeout)
			if tc.explain != "" {
				assert.Equal(t, tc.explain, b.explain(&m.opts))
			}
		})
	}

	// A manager's bound longer than the runners' budget is kept.
	long := &Manager{opts: options{connectTimeout: 5 * time.Minute}}
	assert.Equal(t, 5*time.Minute, (&server{m: long, cfg: ServerConfig{Command: "npx"}}).connectBudget().timeout)
}

func TestEnviron(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/home/u", "METATOOLS_TOKEN=secret", "LC_ALL=C", "npm_config_registry=https://r.example",
		"AWS_PROFILE=dev", "AWS_SECRET_ACCESS_KEY=k", "TOKEN=old", "malformed", "=C:=C:\\"}
	cases := []struct {
		name string
		cfg  ServerConfig
		goos string
		want []string
	}{
		{name: "minimal", goos: "linux",
			want: []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "npm_config_registry=https://r.example"}},
		{name: "configured and inherited", goos: "linux",
			cfg:  ServerConfig{Env: map[string]string{"TOKEN": "new", "B": "2"}, InheritEnv: []string{"AWS_PROFILE"}},
			want: []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "npm_config_registry=https://r.example", "AWS_PROFILE=dev", "B=2", "TOKEN=new"}},
		{name: "a prefix", goos: "linux", cfg: ServerConfig{InheritEnv: []string{"AWS_*"}},
			want: []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "npm_config_registry=https://r.example", "AWS_PROFILE=dev", "AWS_SECRET_ACCESS_KEY=k"}},
		{name: "names are case-sensitive on Unix", goos: "linux", cfg: ServerConfig{InheritEnv: []string{"aws_profile"}},
			want: []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "npm_config_registry=https://r.example"}},
		{name: "and not on Windows", goos: "windows", cfg: ServerConfig{InheritEnv: []string{"aws_profile"}, Env: map[string]string{"path": `C:\bin`}},
			want: []string{"HOME=/home/u", "LC_ALL=C", "npm_config_registry=https://r.example", "AWS_PROFILE=dev", `path=C:\bin`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.cfg.environ(parent, tc.goos))
		})
	}
}

func TestValidInheritEnv(t *testing.T) {
	for _, ok := range []string{"AWS_PROFILE", "AWS_*", "*", "ProgramFiles(x86)"} {
		assert.Empty(t, validInheritEnv(ok), ok)
	}
	for _, bad := range []string{"", "A=B", "A*B", "**", "A\x00"} {
		assert.NotEmpty(t, validInheritEnv(bad), bad)
	}
}

// BenchmarkStderrTail measures the cost of reading a chatty process's
// standard error: 64 KiB of 80-byte lines per write, with a receiver.
func BenchmarkStderrTail(b *testing.B) {
	chunk := bytes.Repeat([]byte(strings.Repeat("x", 79)+"\n"), 64<<10/80)
	lines := 0
	tail := newStderrTail(func([]byte) { lines++ }, nil)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = tail.Write(chunk)
	}
}

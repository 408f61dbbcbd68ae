package catalog_test

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/catalog"
)

// failing is an MCP server entry whose process writes what it sees of its
// environment to standard error, and exits without answering ($$ is the
// configuration's literal $).
const failing = `{name: failing, command: /bin/sh, env: {KEY: configured}, %s
  args: ["-c", "echo \"token=$${METATOOLS_TOKEN:-absent} path=$${PATH:+set} key=$$KEY\" >&2; echo 'fatal: missing API key' >&2; exit 3"]}`

func TestUpstreamStderrIsQuotedAndTheEnvironmentMinimal(t *testing.T) {
	t.Setenv("METATOOLS_TOKEN", "secret of metatools")
	cases := []struct {
		name     string
		setting  string
		opts     func(out *output) []catalog.Option
		streamed string
	}{
		{name: "default", opts: func(*output) []catalog.Option { return nil }},
		{name: "default, with the upstreams' stderr shown",
			opts:     func(out *output) []catalog.Option { return []catalog.Option{catalog.WithUpstreamStderr(out)} },
			streamed: "[failing] token=absent path=set key=configured\n[failing] fatal: missing API key\n"},
		{name: "quiet although shown", setting: "stderr: quiet,",
			opts: func(out *output) []catalog.Option { return []catalog.Option{catalog.WithUpstreamStderr(out)} }},
		{name: "stream", setting: "stderr: stream,",
			opts:     func(out *output) []catalog.Option { return []catalog.Option{catalog.WithUpstreamStderr(out)} },
			streamed: "[failing] token=absent path=set key=configured\n[failing] fatal: missing API key\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := newOutput()
			cat := build(t, "builtin: {disabled: true}\nmcpServers:\n  - "+fmt.Sprintf(failing, tc.setting)+"\n", tc.opts(out)...)
			failure := cat.Upstreams()[0].Error
			assert.Contains(t, failure, "; stderr: token=absent path=set key=configured | fatal: missing API key",
				"the error quotes the last lines; metatools' token stays out of the server's environment")
			assert.Equal(t, tc.streamed, out.String())
		})
	}
}

func TestUpstreamStderrLogged(t *testing.T) {
	logs := newOutput()
	cat := build(t, "builtin: {disabled: true}\nmcpServers:\n  - "+fmt.Sprintf(failing, "stderr: log,")+"\n",
		catalog.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	require.NotEmpty(t, cat.Upstreams()[0].Error)
	assert.Contains(t, logs.String(), `level=INFO msg="MCP server stderr" server=failing line="fatal: missing API key"`)
	assert.Contains(t, logs.String(), `level=WARN msg="MCP server connection failed" server=failing attempt=1`)
}

func TestUpstreamConnectTimeoutNamesTheSetting(t *testing.T) {
	// The server reads its input and never answers.
	cat := build(t, `
builtin: {disabled: true}
limits: {connectTimeout: 300ms}
mcpServers:
  - {name: mute, command: /bin/sh, args: ["-c", "cat >/dev/null"]}
  - {name: slow, command: /bin/sh, args: ["-c", "cat >/dev/null"], connectTimeout: 200ms}
`)
	ups := cat.Upstreams()
	require.NotEmpty(t, ups[0].Error)
	assert.Contains(t, ups[0].Error, `connect to MCP server "mute": no answer within 300ms; raise limits.connectTimeout, or set the server's connectTimeout`)
	require.NotEmpty(t, ups[1].Error)
	assert.Contains(t, ups[1].Error, `connect to MCP server "slow": no answer within 200ms; raise the server's connectTimeout`)
}

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/catalog"
)

// screenshots, when set, is the folder the browser test writes the web
// console's screenshots to: the README shows those of docs/console.
var screenshots = flag.String("screenshots", "", "write the web console's screenshots to this `folder` (the README's are ../../docs/console)")

// chromiumEnv names the Chromium the browser tests drive, when it is not
// on the PATH as chromium.
const chromiumEnv = "METATOOLS_CHROMIUM"

// chromiumPath returns the Chromium to drive. The test fails (never
// skips) when there is none, saying how to install it.
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	require.FailNow(t, "the browser tests drive Chromium, which is not on the PATH: install it (apt-get install chromium), or name it in "+chromiumEnv)
	return ""
}

// TestConsoleInABrowser drives Chromium through the web console of
// `metatools serve --http`, whose upstreams are server-everything, a
// server that exits at once, and an upstream written with the official
// TypeScript SDK under review, whose tool waits for approval: signed in
// with the server's token through the console's form, the upstreams page shows one up and one failed with its reason, a search
// kept to an upstream finds a tool, whose page runs it, the call shows
// among the recent ones, and the quarantined tool is approved from its
// review, after which the running server serves it over MCP. Without the
// token, /ui and its API answer 401; a cross-site POST is refused.
func TestConsoleInABrowser(t *testing.T) {
	chromium := chromiumPath(t)
	modules := npmFile(t)
	npmFile(t, "playwright-core", "index.mjs")
	drive, err := filepath.Abs(filepath.Join("testdata", "console", "drive.mjs"))
	require.NoError(t, err)
	upstream, err := filepath.Abs(filepath.Join("testdata", "trust", "upstream.mjs"))
	require.NoError(t, err)
	failing, err := filepath.Abs(filepath.Join("testdata", "failing-server.mjs"))
	require.NoError(t, err)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.json")
	require.NoError(t, os.WriteFile(notes, []byte(`[{"name": "add_note", "description": "Add a note to the notebook.",
		"inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "what to note"}}, "required": ["text"]}}]`), 0o600))
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf(`trust: {store: %q}
server:
  http:
    console: {enabled: true, run: true, approve: true}
mcpServers:
  - {name: everything, command: node, args: [%q, stdio]}
  - {name: broken, command: node, args: [%q]}
  - {name: notes, trust: review, command: node, args: [%q, %q, %q]}
`, filepath.Join(dir, "pins.db"), everythingServer(t), failing, upstream, modules, notes))
	const token = "console-e2e-secret"
	tokenFile := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(tokenFile, []byte("ops "+token+"\n"), 0o600))
	s := startServed(t, nil, "--config", cfg, "--token-file", tokenFile)
	assert.Contains(t, s.log.String(), "metatools: serving the web console at "+s.base+"/ui/")

	for _, path := range []string{"/ui", "/ui/", "/ui/app.js", "/ui/api/upstreams", "/ui/api/search?q=echo", "/ui/api/calls", "/ui/api/quarantine"} {
		status, _ := s.probe(t, path)
		assert.Equal(t, http.StatusUnauthorized, status, "%s without the token", path)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.base+"/ui/api/run", strings.NewReader(`{"id": "everything:echo", "args": {"message": "forged"}}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Metatools-Console", "1")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a cross-site POST is refused, token or not")

	shots := *screenshots
	if shots == "" {
		shots = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))
	cmd := exec.CommandContext(t.Context(), "node", drive, modules, chromium, s.base+"/ui/", shots)
	cmd.Env = append(os.Environ(), tokenEnv+"="+token,
		"CONSOLE_UP=everything", "CONSOLE_FAILED=broken",
		"CONSOLE_QUERY=echo back a message", "CONSOLE_TOOL=everything:echo",
		`CONSOLE_ARGS={"message": "hello from the console"}`, "CONSOLE_EXPECT=hello from the console",
		"CONSOLE_QUARANTINED=notes:add_note")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "the browser run failed:\n%s", stderr.String())
	var saw struct {
		SignInStatus int      `json:"signInStatus"`
		SignOutShown bool     `json:"signOutShown"`
		UpTools      string   `json:"upTools"`
		FailedError  string   `json:"failedError"`
		Results      []string `json:"results"`
		Summary      string   `json:"summary"`
		Declaration  string   `json:"declaration"`
		Result       string   `json:"result"`
		Call         []string `json:"call"`
		Diff         string   `json:"diff"`
		Approved     string   `json:"approved"`
	}
	require.NoError(t, json.Unmarshal(out, &saw), string(out))
	t.Logf("the browser saw: %s", out)

	assert.Equal(t, http.StatusUnauthorized, saw.SignInStatus, "the console's page asks for a sign-in")
	assert.True(t, saw.SignOutShown, "a signed-in page offers to sign out")
	cs := connectHTTP(t, s.endpoint, token)
	ups := upstreams(t, cs)
	assert.Equal(t, fmt.Sprint(ups["everything"].Tools), saw.UpTools, "the upstream's tools, as the operations count them")
	assert.Contains(t, saw.FailedError, "fatal: missing API key", "the failed upstream's standard error")
	require.NotEmpty(t, saw.Results)
	assert.Equal(t, "everything:echo", saw.Results[0], "the search's best hit")
	for _, id := range saw.Results {
		assert.True(t, strings.HasPrefix(id, "everything:"), "kept to the upstream: %s", id)
	}
	assert.Contains(t, saw.Declaration, "echo", "the TypeScript declaration")
	assert.Contains(t, saw.Result, "Echo: hello from the console")
	require.Len(t, saw.Call, 4, "caller, tool, outcome, duration")
	assert.Equal(t, []string{"token:ops", "everything:echo", "ok"}, saw.Call[:3], "the caller is the token's name, as on /mcp")
	assert.Contains(t, saw.Diff, "Add a note to the notebook.")
	assert.Contains(t, saw.Approved, "Approved notes:add_note")

	require.Eventually(t, func() bool {
		res, _ := callTool(t, cs, "describe_tool", map[string]any{"id": "notes:add_note"})
		return !res.IsError
	}, 3*catalog.TrustPoll, 50*time.Millisecond, "the running server serves the tool approved from the console")
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// The one-catalogue table: the same cases asked of every face of
// metatools — the MCP meta-tools through the official TypeScript SDK
// clients (v1 and v2) over stdio and streamable HTTP, code mode's tools.*
// under each security profile, and the command line — must get the same
// answers, since every face is an adapter over the same operations.
//
// The catalogue is the built-in tools under a policy that denies the
// namespace math and the tool text:hash, with text:* passed through, code
// mode on, and an MCP upstream, "down", that cannot start.

// faceCase is one question, as each face asks it; an empty field means
// the face has no way to ask it.
type faceCase struct {
	name string
	// id is the tool the case names, replaced by <id> in the answers, so
	// that a denied tool's answer compares with an unknown one's.
	id string
	// mcp is the meta-tool and its arguments.
	mcp *mcpCall
	// code is a JavaScript expression a program awaits.
	code string
	// cli are the arguments of the metatools command; the answer is its
	// JSON (run --json, tools --json) or its error line.
	cli []string
}

type mcpCall struct {
	Name string         `json:"name"`
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	// Follow goes on with each answer's nextCursor: the answer is the
	// tools of every page.
	Follow bool `json:"follow,omitempty"`
}

// faceAnswer is what a face answered to a case, in one form for all:
// an error's code and message (the operations' message, where the face
// shows it as it is), or a value as JSON.
type faceAnswer struct {
	Code    errors.Code
	Message string
	Value   string
	// worded marks an answer the face words for a person (the command
	// line's error lines): only its code compares with the others.
	worded bool
}

func (a faceAnswer) String() string {
	if a.Code != "" {
		return fmt.Sprintf("[%s] %s", a.Code, a.Message)
	}
	return a.Value
}

// The cases. A denied, an unknown and a down upstream's tool are asked
// the same questions.
func facesCases() []faceCase {
	var cases []faceCase
	for _, t := range []struct{ kind, id string }{{"denied", "math:eval"}, {"unknown", "math:nope"}, {"down", "down:thing"}, {"denied alone", "text:hash"}} {
		args := map[string]any{"expression": "1"}
		argsJSON, _ := json.Marshal(args)
		cases = append(cases,
			faceCase{name: "describe " + t.kind, id: t.id,
				mcp:  &mcpCall{Tool: "describe_tool", Args: map[string]any{"id": t.id}},
				code: fmt.Sprintf(`tools.describe(%q)`, t.id),
				cli:  []string{"describe", t.id}},
			faceCase{name: "examples " + t.kind, id: t.id,
				mcp:  &mcpCall{Tool: "list_tool_examples", Args: map[string]any{"id": t.id}},
				code: fmt.Sprintf(`tools.examples(%q)`, t.id)},
			faceCase{name: "run " + t.kind, id: t.id,
				mcp:  &mcpCall{Tool: "run_tool", Args: map[string]any{"id": t.id, "args": args}},
				code: fmt.Sprintf(`tools.run(%q, %s)`, t.id, argsJSON),
				cli:  []string{"run", "--json", t.id, string(argsJSON)}},
			faceCase{name: "chain with a step " + t.kind, id: t.id,
				mcp: &mcpCall{Tool: "run_chain", Args: map[string]any{"steps": []any{
					map[string]any{"id": "text:case", "args": map[string]any{"text": "a", "case": "upper"}},
					map[string]any{"id": t.id, "args": args}}}},
				code: fmt.Sprintf(`tools.chain([{id: "text:case", args: {text: "a", case: "upper"}}, {id: %q, args: %s}])`, t.id, argsJSON)},
		)
	}
	for _, ns := range []struct{ kind, name string }{{"denied", "math"}, {"unknown", "nope"}, {"down", "down"}} {
		cases = append(cases, faceCase{name: "search the namespace " + ns.kind, id: ns.name,
			mcp: &mcpCall{Tool: "search_tools", Args: map[string]any{"query": "", "namespace": ns.name}},
			cli: []string{"search", "--namespace", ns.name, "anything"}})
	}
	cases = append(cases,
		faceCase{name: "tool function denied", id: "math:eval", code: `tools.math.eval({expression: "1"})`},
		faceCase{name: "tool function unknown", id: "math:nope", code: `tools.math.nope({expression: "1"})`},
		faceCase{name: "namespaces", mcp: &mcpCall{Tool: "list_namespaces", Args: map[string]any{}}, code: `tools.namespaces()`},
		// The upstreams list_namespaces reports: not the one the policy
		// denies, nor its failure.
		faceCase{name: "upstreams", mcp: &mcpCall{Tool: "list_namespaces", Args: map[string]any{}}},
		// The whole catalogue in one page: math:* and text:hash are
		// left out, and the page is filled past them.
		faceCase{name: "listing", mcp: &mcpCall{Tool: "search_tools", Args: map[string]any{"query": "", "limit": 50}},
			code: `tools.search("", 50)`, cli: []string{"tools", "--json"}},
		// Pages of three that straddle the denied tools: every allowed
		// tool comes once, and every page but the last is full.
		faceCase{name: "listing by pages", mcp: &mcpCall{Tool: "search_tools", Args: map[string]any{"query": "", "limit": 3}, Follow: true}},
	)
	return cases
}

// sameAnswers are the cases that must answer alike on each face: a
// denied tool as an unknown one. A face that words its answers for a
// person (the command line's hints: "did you mean ...") need only agree
// on the code; its run --json shows the operations' message.
var sameAnswers = [][]string{
	{"describe denied", "describe unknown", "describe denied alone"},
	{"examples denied", "examples unknown", "examples denied alone"},
	{"run denied", "run unknown", "run denied alone"},
	{"chain with a step denied", "chain with a step unknown", "chain with a step denied alone"},
	{"search the namespace denied", "search the namespace unknown"},
	{"tool function denied", "tool function unknown"},
}

// downAnswers are the cases about an upstream that could not start: its
// tools and namespace are not there, which every face answers not_found.
var downAnswers = []string{"describe down", "examples down", "run down", "chain with a step down", "search the namespace down"}

// offeredTools are the built-in tools the policy of facesConfig offers.
func offeredTools(t *testing.T) []string {
	t.Helper()
	code, stdout, stderr := cli(t, "", "tools", "--json")
	require.Equal(t, exitOK, code, stderr)
	var all []struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &all))
	var ids []string
	for _, tool := range all {
		if !strings.HasPrefix(tool.ID, "math:") && tool.ID != "text:hash" {
			ids = append(ids, tool.ID)
		}
	}
	return ids
}

func facesConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	cfg := `policy: {deny: ["math:*", "text:hash", "hidden:*"]}
server: {passthrough: ["text:*", "math:*"]}
codeMode: {enabled: true}
mcpServers:
  - name: down
    command: ` + filepath.Join(t.TempDir(), "no-such-server") + `
  - name: hidden
    command: ` + filepath.Join(t.TempDir(), "no-such-secret-server") + `
`
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// TestEveryFaceAnswersAlike runs the one-catalogue table on every face.
func TestEveryFaceAnswersAlike(t *testing.T) {
	cases := facesCases()
	cfg := facesConfig(t)
	offered := offeredTools(t)
	require.Contains(t, offered, "text:case")
	wantListing, err := json.Marshal(offered)
	require.NoError(t, err)

	faces := map[string]map[string]faceAnswer{}
	passthrough := map[string][]string{}
	for _, sdk := range []string{"v1", "v2"} {
		for _, transport := range []string{"stdio", "http"} {
			face := fmt.Sprintf("MCP %s %s", sdk, transport)
			faces[face], passthrough[face] = mcpFace(t, sdk, transport, cfg, cases)
		}
	}
	for _, profile := range []string{"dev", "standard", "hardened"} {
		faces["code mode "+profile] = codeFace(t, profile, cfg, cases)
	}
	faces["command line"] = cliFace(t, cfg, cases)

	for face, answers := range faces {
		t.Run(face, func(t *testing.T) {
			for _, group := range sameAnswers {
				var first string
				for _, name := range group {
					a, ok := answers[name]
					if !ok {
						continue
					}
					assert.Equal(t, errors.NotFound, a.Code, "%s: %s", name, a)
					assert.NotContains(t, a.String(), "denied", "%s: nothing tells a denied tool from an unknown one", name)
					if first == "" {
						first = name
						continue
					}
					if a.worded {
						continue
					}
					assert.Equal(t, answers[first].String(), a.String(), "%q answers as %q", name, first)
				}
			}
			for _, name := range downAnswers {
				if a, ok := answers[name]; ok {
					assert.Equal(t, errors.NotFound, a.Code, "%s: %s", name, a)
				}
			}
			for _, name := range []string{"listing", "listing by pages"} {
				if a, ok := answers[name]; ok {
					assert.JSONEq(t, string(wantListing), a.Value, "%s: every allowed tool once, and no denied one", name)
				}
			}
			if a, ok := answers["upstreams"]; ok {
				assert.JSONEq(t, `["builtin","down"]`, a.Value, "an upstream whose namespace is denied is hidden")
			}
			if a, ok := answers["namespaces"]; ok {
				assert.JSONEq(t, `["json","text","time"]`, a.Value, "a namespace whose every tool is denied is hidden")
			}
		})
	}

	// Across faces: the same case gets the same answer, word for word
	// where the face shows the operations' message as it is.
	for _, c := range cases {
		var ref string
		var refAnswer faceAnswer
		for face, answers := range faces {
			a, ok := answers[c.name]
			if !ok {
				continue
			}
			if ref == "" {
				ref, refAnswer = face, a
				continue
			}
			assert.Equal(t, refAnswer.Code, a.Code, "%s: %s answers %s, %s answers %s", c.name, ref, refAnswer, face, a)
			if !a.worded && !refAnswer.worded && a.Code != "" {
				assert.Equal(t, refAnswer.Message, a.Message, "%s: %s and %s", c.name, ref, face)
			}
		}
	}

	for face, tools := range passthrough {
		assert.Contains(t, tools, "text.case", face)
		assert.NotContains(t, tools, "text.hash", "%s: a denied tool is not passed through", face)
		assert.NotContains(t, tools, "math.eval", face)
	}
}

// withIDHidden returns an error's message with the tool or namespace of the
// case replaced by <id>.
func withIDHidden(message, id string) string {
	if id == "" {
		return message
	}
	return strings.ReplaceAll(message, id, "<id>")
}

var codePrefix = regexp.MustCompile(`^\[([a-z_]+)\] `)

// mcpFace asks the cases of the meta-tools with the TypeScript SDK sdk
// over transport, and returns the answers and the tools/list names.
func mcpFace(t *testing.T, sdk, transport, cfg string, cases []faceCase) (map[string]faceAnswer, []string) {
	t.Helper()
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	npmFile(t, "@modelcontextprotocol", "sdk", "dist", "esm", "client", "index.js")
	npmFile(t, "@modelcontextprotocol", "client", "dist", "index.mjs")
	var calls []mcpCall
	for _, c := range cases {
		if c.mcp != nil {
			call := *c.mcp
			call.Name = c.name
			calls = append(calls, call)
		}
	}
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	raw, err := json.Marshal(calls)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(callsFile, raw, 0o600))

	target := metatoolsBinary(t)
	if transport == "http" {
		target = serveHTTP(t, nil, "--config", cfg)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "faces", "client.mjs"), modules, sdk, transport, target, cfg, callsFile)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s", sdk, transport)
	var report struct {
		Tools   []string `json:"tools"`
		Answers map[string]struct {
			IsError       bool            `json:"isError"`
			Text          string          `json:"text"`
			Structured    json.RawMessage `json:"structured"`
			ProtocolError string          `json:"protocolError"`
		} `json:"answers"`
	}
	require.NoError(t, json.Unmarshal(out, &report), string(out))
	answers := map[string]faceAnswer{}
	for _, c := range cases {
		got, ok := report.Answers[c.name]
		if !ok {
			continue
		}
		require.Empty(t, got.ProtocolError, c.name)
		if got.IsError {
			m := codePrefix.FindStringSubmatch(got.Text)
			require.NotNil(t, m, "%s: %s", c.name, got.Text)
			answers[c.name] = faceAnswer{Code: errors.Code(m[1]), Message: withIDHidden(strings.TrimPrefix(got.Text, m[0]), c.id)}
			continue
		}
		answers[c.name] = faceAnswer{Value: mcpValue(t, c.name, got.Structured)}
	}
	return answers, report.Tools
}

// mcpValue is the value of a meta-tool's answer that the other faces
// give: the namespaces, or the IDs of a listing.
func mcpValue(t *testing.T, name string, structured json.RawMessage) string {
	t.Helper()
	var out struct {
		Namespaces []string `json:"namespaces"`
		Tools      []struct {
			ID string `json:"id"`
		} `json:"tools"`
		Pages     []int `json:"pages"`
		Upstreams []struct {
			Name string `json:"name"`
		} `json:"upstreams"`
	}
	require.NoError(t, json.Unmarshal(structured, &out), name)
	for i, n := range out.Pages {
		if i < len(out.Pages)-1 {
			assert.Equal(t, 3, n, "%s: page %d of %v is full", name, i, out.Pages)
		}
	}
	var v any = out.Namespaces
	switch {
	case name == "upstreams":
		names := []string{}
		for _, u := range out.Upstreams {
			names = append(names, u.Name)
		}
		v = names
	case out.Namespaces == nil:
		ids := []string{}
		for _, tool := range out.Tools {
			ids = append(ids, tool.ID)
		}
		v = ids
	}
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// codeFace asks the cases of code mode's tools.* in one program run by
// `metatools exec` under a security profile.
func codeFace(t *testing.T, profile, cfg string, cases []faceCase) map[string]faceAnswer {
	t.Helper()
	var program strings.Builder
	program.WriteString("const probe = async (f) => { try { return {value: await f()}; } catch (e) { return {code: e.code, message: e.message}; } };\n")
	program.WriteString("const out = {};\n")
	for _, c := range cases {
		if c.code != "" {
			fmt.Fprintf(&program, "out[%q] = await probe(() => %s);\n", c.name, c.code)
		}
	}
	program.WriteString("return out;\n")
	file := filepath.Join(t.TempDir(), "faces.js")
	require.NoError(t, os.WriteFile(file, []byte(program.String()), 0o600))
	cmd := exec.Command(metatoolsBinary(t), "exec", "--config", cfg, "--profile", profile, "--json", file)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err, profile)
	var res struct {
		Value map[string]struct {
			Value   json.RawMessage `json:"value"`
			Code    errors.Code     `json:"code"`
			Message string          `json:"message"`
		} `json:"value"`
	}
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	answers := map[string]faceAnswer{}
	for _, c := range cases {
		got, ok := res.Value[c.name]
		if !ok {
			continue
		}
		if got.Code != "" {
			answers[c.name] = faceAnswer{Code: got.Code, Message: withIDHidden(got.Message, c.id)}
			continue
		}
		v := string(got.Value)
		if c.name == "listing" {
			v = idList(t, got.Value)
		}
		answers[c.name] = faceAnswer{Value: v}
	}
	return answers
}

// cliFace asks the cases of the metatools command.
func cliFace(t *testing.T, cfg string, cases []faceCase) map[string]faceAnswer {
	t.Helper()
	answers := map[string]faceAnswer{}
	bracket := regexp.MustCompile(`\[([a-z_]+)\]\n?$`)
	for _, c := range cases {
		if c.cli == nil {
			continue
		}
		args := append([]string{c.cli[0], "--config", cfg}, c.cli[1:]...)
		code, stdout, stderr := cli(t, "", args...)
		switch {
		case c.cli[0] == "run":
			var out struct {
				Error *struct {
					Code    errors.Code `json:"code"`
					Message string      `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
			require.NotNil(t, out.Error, c.name)
			answers[c.name] = faceAnswer{Code: out.Error.Code, Message: withIDHidden(out.Error.Message, c.id)}
		case code == exitOK:
			answers[c.name] = faceAnswer{Value: idList(t, []byte(stdout))}
		default:
			// The error is the last line, after the upstreams' progress.
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			m := bracket.FindStringSubmatch(last)
			require.NotNil(t, m, "%s: %s", c.name, stderr)
			answers[c.name] = faceAnswer{Code: errors.Code(m[1]), Message: withIDHidden(last, c.id), worded: true}
		}
	}
	return answers
}

// idList returns the IDs of a JSON list of tools, as a JSON list.
func idList(t *testing.T, tools []byte) string {
	t.Helper()
	var listed []struct{ ID string }
	require.NoError(t, json.Unmarshal(tools, &listed), string(tools))
	ids := []string{}
	for _, l := range listed {
		ids = append(ids, l.ID)
	}
	raw, err := json.Marshal(ids)
	require.NoError(t, err)
	return string(raw)
}

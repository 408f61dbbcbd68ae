package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
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
// mode on, an MCP upstream, "down", that cannot start, and two that offer
// a tool, a resource, a resource template and a prompt each: "docs",
// allowed, and "secret", denied. Over HTTP the table is asked again with
// an OAuth access token whose scope allows every tool, and a token that
// may only search is checked to reach nothing else.

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
	Name string `json:"name"`
	Tool string `json:"tool,omitempty"`
	// Method, instead of Tool, is the client method called with Args
	// (readResource, getPrompt, complete, listResources...).
	Method string         `json:"method,omitempty"`
	Args   map[string]any `json:"args"`
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
	// The resources, templates, prompts and completions of the upstreams:
	// the denied upstream's answer as an unknown one's, and its items are
	// not listed.
	for _, up := range []struct{ kind, name string }{{"denied", "secret"}, {"unknown", "nope"}} {
		cases = append(cases,
			faceCase{name: "read a resource " + up.kind, id: up.name,
				mcp: &mcpCall{Method: "readResource", Args: map[string]any{"uri": up.name + "://note"}}},
			faceCase{name: "read through a template " + up.kind, id: up.name,
				mcp: &mcpCall{Method: "readResource", Args: map[string]any{"uri": up.name + "://notes/7"}}},
			faceCase{name: "get a prompt " + up.kind, id: up.name,
				mcp: &mcpCall{Method: "getPrompt", Args: map[string]any{"name": up.name + ".greet", "arguments": map[string]any{"who": "x"}}}},
			faceCase{name: "complete a prompt " + up.kind, id: up.name,
				mcp: &mcpCall{Method: "complete", Args: map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": up.name + ".greet"},
					"argument": map[string]any{"name": "who", "value": ""}}}},
			faceCase{name: "complete a template " + up.kind, id: up.name,
				mcp: &mcpCall{Method: "complete", Args: map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": up.name + "://notes/{id}"},
					"argument": map[string]any{"name": "id", "value": ""}}}},
		)
	}
	cases = append(cases,
		faceCase{name: "resources", mcp: &mcpCall{Method: "listResources", Args: map[string]any{}}},
		faceCase{name: "resource templates", mcp: &mcpCall{Method: "listResourceTemplates", Args: map[string]any{}}},
		faceCase{name: "prompts", mcp: &mcpCall{Method: "listPrompts", Args: map[string]any{}}},
		faceCase{name: "read a resource allowed", mcp: &mcpCall{Method: "readResource", Args: map[string]any{"uri": "docs://note"}}},
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

// sameRefusals are the requests other than tool calls (resources,
// prompts, completions) that a denied upstream must answer as an unknown
// one: with the same protocol error.
var sameRefusals = [][]string{
	{"read a resource denied", "read a resource unknown"},
	{"read through a template denied", "read through a template unknown"},
	{"get a prompt denied", "get a prompt unknown"},
	{"complete a prompt denied", "complete a prompt unknown"},
	{"complete a template denied", "complete a template unknown"},
}

// upstreamLists are what the lists of resources, templates and prompts
// must hold: the allowed upstream's items, none of the denied one's.
var upstreamLists = map[string]string{
	"resources":               `["docs://note"]`,
	"resource templates":      `["docs://notes/{id}"]`,
	"prompts":                 `["docs.greet"]`,
	"read a resource allowed": `["the docs note"]`,
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
	// The allowed upstream's tool; the denied upstream's is hidden.
	ids = append(ids, "docs:note")
	slices.Sort(ids)
	return ids
}

// facesConfig writes the configuration of the table; with an issuer, the
// HTTP server also takes its access tokens, with the scopes "all" (every
// tool) and "search" (search_tools alone).
func facesConfig(t *testing.T, issuer *tokenIssuer) string {
	t.Helper()
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	upstream, err := filepath.Abs(filepath.Join("testdata", "faces", "upstream.mjs"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	cfg := `policy: {deny: ["math:*", "text:hash", "hidden:*", "secret:*"]}
server: {passthrough: ["text:*", "math:*"]}
codeMode: {enabled: true}
mcpServers:
  - name: down
    command: /nonexistent/no-such-server
  - name: hidden
    command: /nonexistent/no-such-secret-server
  - name: secret
    command: node
    args: [` + strconv.Quote(upstream) + `, ` + strconv.Quote(modules) + `, secret]
  - name: docs
    command: node
    args: [` + strconv.Quote(upstream) + `, ` + strconv.Quote(modules) + `, docs]
`
	if issuer != nil {
		cfg = strings.Replace(cfg, "server: {passthrough: [\"text:*\", \"math:*\"]}", `server:
  passthrough: ["text:*", "math:*"]
  http:
    oauth:
      resource: `+facesResource+`
      issuer: `+issuer.URL+`
      jwksUri: `+issuer.URL+`/jwks
      scopes: {all: ["*"], search: [search_tools]}`, 1)
	}
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// TestEveryFaceAnswersAlike runs the one-catalogue table on every face.
func TestEveryFaceAnswersAlike(t *testing.T) {
	cases := facesCases()
	cfg := facesConfig(t, nil)
	issuer := newTokenIssuer(t)
	oauthCfg := facesConfig(t, issuer)
	oauthEndpoint := serveHTTP(t, nil, "--config", oauthCfg)
	offered := offeredTools(t)
	require.Contains(t, offered, "text:case")
	wantListing, err := json.Marshal(offered)
	require.NoError(t, err)

	faces := map[string]map[string]faceAnswer{}
	passthrough := map[string][]string{}
	for _, sdk := range []string{"v1", "v2", "v2-2026-07-28"} {
		for _, transport := range []string{"stdio", "http"} {
			face := fmt.Sprintf("MCP %s %s", sdk, transport)
			faces[face], passthrough[face] = mcpFace(t, sdk, transport, cfg, cases, "", nil)
		}
		if sdk == "v2-2026-07-28" {
			continue
		}
		face := fmt.Sprintf("MCP %s http, OAuth token of every scope", sdk)
		faces[face], passthrough[face] = mcpFace(t, sdk, "http", oauthCfg, cases, oauthEndpoint,
			[]string{"FACES_TOKEN=" + issuer.token(t, "all")})
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
			for _, group := range sameRefusals {
				first, ok := answers[group[0]]
				if !ok {
					continue
				}
				assert.NotEmpty(t, first.Code, "%s is refused: %s", group[0], first)
				for _, name := range group[1:] {
					assert.Equal(t, first.String(), answers[name].String(), "%q answers as %q", name, group[0])
				}
			}
			for name, want := range upstreamLists {
				if a, ok := answers[name]; ok {
					assert.JSONEq(t, want, a.Value, name)
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
				assert.JSONEq(t, `["builtin","down","docs"]`, a.Value, "an upstream whose namespace is denied is hidden")
			}
			if a, ok := answers["namespaces"]; ok {
				assert.JSONEq(t, `["docs","json","text","time"]`, a.Value, "a namespace whose every tool is denied is hidden")
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

	// A token that may only search reaches nothing else: no other tool,
	// no resource, template or prompt of any upstream.
	t.Run("MCP http, OAuth token of the search scope", func(t *testing.T) {
		for _, sdk := range []string{"v1", "v2"} {
			answers, tools := mcpFace(t, sdk, "http", oauthCfg, cases, oauthEndpoint,
				[]string{"FACES_TOKEN=" + issuer.token(t, "search"), "FACES_NO_WAIT=1"})
			assert.Equal(t, []string{"search_tools"}, tools, sdk)
			for _, name := range []string{"resources", "resource templates", "prompts"} {
				assert.JSONEq(t, `[]`, answers[name].Value, "%s %s", sdk, name)
			}
			for _, name := range []string{"read a resource allowed", "get a prompt denied", "complete a prompt unknown"} {
				assert.Contains(t, answers[name].Message, "the token's scopes do not allow", "%s %s: %s", sdk, name, answers[name])
			}
			assert.JSONEq(t, string(wantListing), answers["listing"].Value, sdk)
			// SDK v1 reports the HTTP status, v2 the scope it would need.
			refused := answers["run denied"]
			assert.NotEmpty(t, refused.Code, sdk)
			assert.Contains(t, strings.ToLower(refused.String()), "scope", "%s: %s", sdk, refused)
		}
	})

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

// sdkPrefix is what the TypeScript SDK v1 puts before the message of a
// JSON-RPC error.
var sdkPrefix = regexp.MustCompile(`^MCP error -?\d+: `)

// mcpFace asks the cases of the meta-tools with the TypeScript SDK sdk
// over transport, and returns the answers and the tools/list names. Over
// HTTP it asks endpoint, or a server of its own when endpoint is empty;
// env is the client's.
func mcpFace(t *testing.T, sdk, transport, cfg string, cases []faceCase, endpoint string, env []string) (map[string]faceAnswer, []string) {
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
	switch {
	case endpoint != "":
		target = endpoint
	case transport == "http":
		target = serveHTTP(t, nil, "--config", cfg)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "faces", "client.mjs"), modules, sdk, transport, target, cfg, callsFile)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s", sdk, transport)
	var report struct {
		Tools           []string `json:"tools"`
		ProtocolVersion string   `json:"protocolVersion"`
		Answers         map[string]struct {
			IsError       bool            `json:"isError"`
			Text          string          `json:"text"`
			Structured    json.RawMessage `json:"structured"`
			Result        json.RawMessage `json:"result"`
			ProtocolError string          `json:"protocolError"`
			ProtocolCode  json.RawMessage `json:"protocolCode"`
		} `json:"answers"`
	}
	require.NoError(t, json.Unmarshal(out, &report), string(out))
	if pinned, ok := strings.CutPrefix(sdk, "v2-"); ok {
		require.Equal(t, pinned, report.ProtocolVersion, "the client speaks the revision it is pinned to over %s", transport)
	}
	answers := map[string]faceAnswer{}
	for _, c := range cases {
		got, ok := report.Answers[c.name]
		if !ok {
			continue
		}
		switch {
		case got.ProtocolError != "":
			// A request refused as a request: by its JSON-RPC or HTTP code,
			// and the server's message, without the prefix SDK v1 adds.
			message := sdkPrefix.ReplaceAllString(got.ProtocolError, "")
			answers[c.name] = faceAnswer{Code: errors.Code(protocolCode(got.ProtocolCode)), Message: withIDHidden(message, c.id)}
			continue
		case c.mcp.Method != "":
			answers[c.name] = faceAnswer{Value: methodValue(t, c.name, got.Result)}
			continue
		}
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

// protocolCode names the code of a refused request: "jsonrpc -32602" for
// a JSON-RPC error, "http 403" for an HTTP status.
func protocolCode(raw json.RawMessage) string {
	var code int
	if json.Unmarshal(raw, &code) != nil {
		return "refused"
	}
	if code >= 100 && code < 600 {
		return fmt.Sprintf("http %d", code)
	}
	return fmt.Sprintf("jsonrpc %d", code)
}

// methodValue is the value of a client method's answer: the URIs, URI
// templates or names of a list, or the texts of a resource.
func methodValue(t *testing.T, name string, result json.RawMessage) string {
	t.Helper()
	var out struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(result, &out), name)
	values := []string{}
	for _, r := range out.Resources {
		values = append(values, r.URI)
	}
	for _, r := range out.ResourceTemplates {
		values = append(values, r.URITemplate)
	}
	for _, p := range out.Prompts {
		values = append(values, p.Name)
	}
	for _, c := range out.Contents {
		values = append(values, c.Text)
	}
	raw, err := json.Marshal(values)
	require.NoError(t, err)
	return string(raw)
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

// facesResource is the resource identifier of the server that takes OAuth
// access tokens: the audience its tokens name.
const facesResource = "http://metatools.test/mcp"

// tokenIssuer is what a resource server sees of an authorization server:
// an issuer identifier, a key set served over HTTP, and access tokens
// signed with its key.
type tokenIssuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func newTokenIssuer(t *testing.T) *tokenIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	iss := &tokenIssuer{key: key}
	keys := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "faces", Algorithm: string(jose.ES256), Use: "sig"}}}
	iss.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(keys)
	}))
	t.Cleanup(iss.Close)
	return iss
}

// token returns an access token for the faces' server with scope, valid
// for an hour.
func (iss *tokenIssuer) token(t *testing.T, scope string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: iss.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "faces"))
	require.NoError(t, err)
	now := time.Now()
	claims, err := json.Marshal(map[string]any{
		"iss": iss.URL, "aud": facesResource, "sub": "faces-client", "scope": scope,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
	require.NoError(t, err)
	signed, err := signer.Sign(claims)
	require.NoError(t, err)
	token, err := signed.CompactSerialize()
	require.NoError(t, err)
	return token
}

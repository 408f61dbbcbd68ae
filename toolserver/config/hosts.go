package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolserver/internal/spell"
)

// This file reads the configuration files of MCP hosts (Claude Desktop,
// Cursor, Windsurf, Cline, Claude Code's .mcp.json, VS Code's mcp.json):
// a JSON object whose "mcpServers" (or, in VS Code, "servers") object maps
// a server's name to how it is started or reached.

// hostKeys are the top-level keys under which hosts keep their servers,
// in the order they are read.
var hostKeys = []string{"mcpServers", "servers"}

// hostFields are the fields of a host's server entry that metatools
// reads.
var hostFields = []string{"args", "command", "cwd", "disabled", "disabledTools", "env", "headers", "serverUrl", "transportType", "type", "url"}

// hostIgnored are the fields hosts add to an entry for their own use
// (approval lists, their own timeouts, descriptions): they do not change
// how a server is reached, so they are accepted and ignored.
var hostIgnored = []string{"alwaysAllow", "autoApprove", "description", "timeout"}

// IsHostConfig reports whether data is the configuration file of an MCP
// host rather than a metatools YAML file: a JSON object (comments and
// trailing commas allowed, as in VS Code's files) holding an "mcpServers"
// or "servers" object. A metatools file never matches: its mcpServers is
// a list.
func IsHostConfig(data []byte) bool {
	top, err := hostTop(data)
	if err != nil {
		return false
	}
	for _, k := range hostKeys {
		if raw, ok := top[k]; ok && isJSONObject(raw) {
			return true
		}
	}
	return false
}

// ParseHostConfig maps the configuration file of an MCP host onto a
// [Config]: each server becomes an [MCPServer] named by its key, in the
// file's order, and every other setting keeps its default. Keys that are
// not valid names are normalised (see [HostServerName]). Entries with
// "disabled": true are skipped, and the tools an entry lists in
// "disabledTools" are denied by the policy ("server:tool"), so that they
// neither show nor run. Environment variables are expanded as in YAML
// files. Every problem found is reported, naming the entry, with code
// [errors.InvalidArgument].
func ParseHostConfig(data []byte) (*Config, error) {
	servers, err := decodeHostServers(data)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	var exp expansions
	cfg := &Config{}
	var entries []hostServer // the entry of each server of cfg
	for _, h := range servers {
		if h.disabled {
			continue
		}
		s := expandServer(h, &problems, &exp)
		if s.URL != "" && !isHTTPURL(s.URL) {
			problems = append(problems, h.problem(h.urlKey(), fmt.Sprintf("url %q is not an http(s) URL", s.URL)))
		}
		cfg.MCPServers = append(cfg.MCPServers, s)
		cfg.Policy.Deny = append(cfg.Policy.Deny, h.deniedTools()...)
		entries = append(entries, h)
	}
	if len(problems) == 0 {
		// The checks of every configuration, told in the words of the
		// host's file: its entries by their keys, "cwd" for dir.
		for _, p := range cfg.problems() {
			if len(p.at) >= 2 && p.at[0] == "mcpServers" {
				if i, ok := p.at[1].(int); ok && i < len(entries) {
					field := ""
					if len(p.at) > 2 {
						field, _ = p.at[2].(string)
						if field == "dir" {
							field = "cwd"
						}
					}
					p = entries[i].problem(field, strings.TrimSpace(field+" "+p.Message))
				}
			}
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, problemsError(exp.hide(problems))
	}
	return cfg, nil
}

// ImportHostConfig returns the metatools YAML configuration equivalent to
// the configuration file of an MCP host, to be completed with policies,
// limits and other upstreams. References to environment variables are
// kept as they are, so that no secret is copied into the output; renamed
// and disabled servers are noted in comments, and the tools the host
// disables become the policy's deny list. The file's structure is
// checked as [ParseHostConfig] checks it, with code
// [errors.InvalidArgument].
func ImportHostConfig(data []byte) ([]byte, error) {
	servers, err := decodeHostServers(data)
	if err != nil {
		return nil, err
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	deny := &yaml.Node{Kind: yaml.SequenceNode}
	var skipped []string
	for _, h := range servers {
		if h.disabled {
			skipped = append(skipped, fmt.Sprintf("# %s is disabled in the host's file and was left out.", h.where))
			continue
		}
		for _, pattern := range h.deniedTools() {
			deny.Content = append(deny.Content, scalar(pattern))
		}
		entry := serverNode(h.server)
		if h.key != h.server.Name {
			entry.HeadComment = fmt.Sprintf("From %s, renamed: a name holds only ASCII letters, digits, '_', '.' and '-'.", h.where)
		}
		list.Content = append(list.Content, entry)
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	key := scalar("mcpServers")
	key.HeadComment = "metatools configuration imported from an MCP host's configuration file.\n" +
		"Every other section (server, search, policy, limits, builtin, openapi,\n" +
		"grpc) keeps its default: see `metatools config example`."
	if len(list.Content) == 0 {
		list.Style = yaml.FlowStyle
	}
	root.Content = append(root.Content, key, list)
	if len(deny.Content) > 0 {
		policy := scalar("policy")
		policy.HeadComment = "The tools the host's file disables (disabledTools): they neither show nor run."
		root.Content = append(root.Content, policy, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("deny"), deny}})
	}
	if len(skipped) > 0 {
		root.FootComment = strings.Join(skipped, "\n")
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, errors.Errorf(errors.Internal, "render config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, errors.Errorf(errors.Internal, "render config: %w", err)
	}
	return out.Bytes(), nil
}

// HostServerName returns the metatools name of a host's server key: the
// key itself when it is a valid name, otherwise the key with each run of
// bytes other than ASCII letters, digits, '_', '.' and '-' replaced by a
// single '_', and '_' trimmed from both ends ("Brave Search" becomes
// "Brave_Search", "@acme/notes" becomes "acme_notes"). The result may
// still be invalid (empty, or too long), which the caller reports.
func HostServerName(key string) string {
	if toolmodel.ValidateName(key) == nil {
		return key
	}
	var b strings.Builder
	replaced := false
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < utf8.RuneSelf && toolmodel.ValidateName(string(c)) == nil {
			b.WriteByte(c)
			replaced = false
			continue
		}
		if !replaced {
			b.WriteByte('_')
			replaced = true
		}
	}
	return strings.Trim(b.String(), "_")
}

// hostServer is one server entry of a host's file, checked but not
// expanded.
type hostServer struct {
	// key is the entry's key in the file.
	key string
	// where names the entry in messages: mcpServers "key".
	where    string
	disabled bool
	server   MCPServer
	// disabledTools are the names of the server's tools the host disables.
	disabledTools []string
	// lines are the lines of the entry's key ("") and of its fields, by
	// their paths of keys joined by NUL bytes ("env\x00TOKEN").
	lines map[string]int
}

// problem returns a problem of the entry, at the line of its field (of
// its key when field is "" or not written).
func (h hostServer) problem(field, msg string) Problem {
	line, ok := h.lines[field]
	if !ok {
		line = h.lines[""]
	}
	return Problem{Line: line, Path: h.where, Message: msg}
}

// urlKey returns the field the entry's url is written in.
func (h hostServer) urlKey() string {
	if _, ok := h.lines["serverUrl"]; ok {
		return "serverUrl"
	}
	return "url"
}

// hostTop decodes the top-level object of a host's file.
func hostTop(data []byte) (map[string]json.RawMessage, error) {
	clean, err := stripJSONC(data)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("not a JSON object")
	}
	return top, nil
}

func isJSONObject(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '{'
}

// decodeHostServers reads and checks the server entries of a host's file,
// in the file's order. Every problem found is reported.
func decodeHostServers(data []byte) ([]hostServer, error) {
	top, err := hostTop(data)
	if err != nil {
		return nil, problemsError([]Problem{{Message: fmt.Sprintf("an MCP host's file must be a JSON object: %v", err)}})
	}
	clean, _ := stripJSONC(data) // hostTop has read it
	lines := jsonKeyLines(clean)
	var problems []Problem
	add := func(line int, format string, args ...any) {
		problems = append(problems, Problem{Line: line, Message: fmt.Sprintf(format, args...)})
	}
	found := false
	var servers []hostServer
	names := map[string]string{}
	for _, section := range hostKeys {
		raw, ok := top[section]
		if !ok || string(raw) == "null" {
			continue
		}
		if !isJSONObject(raw) {
			add(lines[section], "%s must be an object mapping server names to servers", section)
			continue
		}
		found = true
		entries, err := orderedObject(raw)
		if err != nil {
			add(lines[section], "%s: %v", section, err)
			continue
		}
		for _, e := range entries {
			h := hostServer{key: e.key, where: fmt.Sprintf("%s %q", section, e.key), lines: map[string]int{}}
			prefix := section + "\x00" + e.key
			for path, line := range lines {
				if path == prefix {
					h.lines[""] = line
				} else if field, ok := strings.CutPrefix(path, prefix+"\x00"); ok {
					h.lines[field] = line
				}
			}
			// A disabled entry is skipped as the host skips it: its
			// problems are not reported.
			var entryProblems []Problem
			h.server, h.disabled, h.disabledTools = decodeHostServer(e.value, func(field, format string, args ...any) {
				entryProblems = append(entryProblems, h.problem(field, fmt.Sprintf(format, args...)))
			})
			if h.disabled {
				servers = append(servers, h)
				continue
			}
			problems = append(problems, entryProblems...)
			h.server.Name = HostServerName(e.key)
			if err := toolmodel.ValidateName(h.server.Name); err != nil {
				problems = append(problems, h.problem("", fmt.Sprintf("the name %q made of the key is not valid: %v", h.server.Name, err)))
			} else if prev, dup := names[h.server.Name]; dup {
				problems = append(problems, h.problem("", fmt.Sprintf("its name %q is already used by %s", h.server.Name, prev)))
			} else {
				names[h.server.Name] = h.where
			}
			servers = append(servers, h)
		}
	}
	if !found && len(problems) == 0 {
		add(0, "an MCP host's file needs an object %q or %q", hostKeys[0], hostKeys[1])
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, problemsError(problems)
	}
	return servers, nil
}

// decodeHostServer maps one entry onto an MCPServer (without its name)
// and reports whether it is disabled.
func decodeHostServer(raw json.RawMessage, add func(field, format string, args ...any)) (s MCPServer, disabled bool, disabledTools []string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		add("", "must be an object with a command or a url")
		return s, false, nil
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(hostFields, k) && !slices.Contains(hostIgnored, k) {
			switch k {
			case "envFile":
				add(k, "envFile is not supported: list the variables in env instead")
			default:
				if near, ok := spell.Suggest(k, append(slices.Clone(hostFields), hostIgnored...)); ok {
					add(k, "unknown field %q (did you mean %q?)", k, near)
				} else {
					add(k, "unknown field %q (known: %s; ignored: %s)", k, strings.Join(hostFields, ", "), strings.Join(hostIgnored, ", "))
				}
			}
		}
	}
	field := func(name string, v any) bool {
		r, ok := fields[name]
		if !ok || string(r) == "null" {
			return false
		}
		if err := json.Unmarshal(r, v); err != nil {
			add(name, "%s must be %s", name, kindOf(v))
			return false
		}
		return true
	}
	field("disabled", &disabled)
	if field("disabledTools", &disabledTools) {
		for _, name := range disabledTools {
			if err := toolmodel.ValidateName(name); err != nil {
				add("disabledTools", "disabledTools: %q is not a tool's name: %v", name, err)
			}
		}
	}
	field("command", &s.Command)
	field("args", &s.Args)
	field("cwd", &s.Dir)
	s.Env = stringMap("env", fields, add)
	s.Headers = stringMap("headers", fields, add)
	var url, serverURL string
	field("url", &url)
	field("serverUrl", &serverURL)
	switch {
	case url != "" && serverURL != "":
		add("serverUrl", "has both url and serverUrl")
	case serverURL != "":
		url = serverURL
	}
	s.URL = url

	var transport, transportType string
	field("type", &transport)
	field("transportType", &transportType)
	if transport == "" {
		transport = transportType
	}
	switch transport {
	case "", "stdio":
		if transport == "stdio" && s.URL != "" {
			add("type", "has type %q but a url: a stdio server needs a command", transport)
		}
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		if s.Command != "" {
			add("type", "has type %q but a command: an HTTP server needs a url", transport)
		}
	case "sse":
		add("type", "has type \"sse\": the older HTTP+SSE transport is not supported, only streamable HTTP; "+
			"if the server also serves streamable HTTP (often at /mcp), set type \"http\" and that url")
	default:
		add("type", "type %q is not stdio, http or sse", transport)
	}
	switch {
	case s.Command == "" && s.URL == "":
		add("", "needs a command or a url")
	case s.Command != "" && s.URL != "":
		add("", "has both a command and a url")
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Dir != ""):
		field := "args"
		if len(s.Args) == 0 {
			field = map[bool]string{true: "env", false: "cwd"}[len(s.Env) > 0]
		}
		add(field, "args, env and cwd apply to a command only, not to a url")
	case s.Command != "" && len(s.Headers) > 0:
		add("headers", "headers apply to a url only, not to a command")
	}
	return s, disabled, disabledTools
}

// deniedTools returns the policy's patterns of the tools the host
// disables: "server:tool", in the server's namespace.
func (h hostServer) deniedTools() []string {
	out := make([]string, len(h.disabledTools))
	for i, name := range h.disabledTools {
		out[i] = NamespaceOf("", h.server.Name) + ":" + name
	}
	return out
}

// stringMap decodes an object of strings; numbers and booleans are taken
// as their JSON text, as hosts pass them on as text.
func stringMap(name string, fields map[string]json.RawMessage, add func(field, format string, args ...any)) map[string]string {
	r, ok := fields[name]
	if !ok || string(r) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r, &m); err != nil {
		add(name, "%s must be an object of strings", name)
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k] = s
		case len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9' || string(v) == "true" || string(v) == "false"):
			out[k] = string(v)
		default:
			add(name, "%s %q must be a string", name, k)
		}
	}
	return out
}

func kindOf(v any) string {
	switch v.(type) {
	case *bool:
		return "true or false"
	case *[]string:
		return "a list of strings"
	default:
		return "a string"
	}
}

// expandServer returns s with the environment variables of its strings
// expanded, as in a YAML file, recording what changed in x.
func expandServer(h hostServer, problems *[]Problem, x *expansions) MCPServer {
	s := h.server
	exp := func(field, v string) string {
		key := strings.Replace(field, " ", "\x00", 1)
		if _, ok := h.lines[key]; !ok {
			key, _, _ = strings.Cut(key, "\x00")
			key, _, _ = strings.Cut(key, "[")
		}
		return x.expand(v, func(msg string) { *problems = append(*problems, h.problem(key, field+": "+msg)) })
	}
	expMap := func(field string, m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out[exp(field, k)] = exp(field+" "+k, m[k])
		}
		return out
	}
	s.Command = exp("command", s.Command)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = exp(fmt.Sprintf("args[%d]", i), a)
		}
		s.Args = args
	}
	s.Env = expMap("env", s.Env)
	s.Dir = exp("cwd", s.Dir)
	s.URL = exp(h.urlKey(), s.URL)
	s.Headers = expMap("headers", s.Headers)
	return s
}

// serverNode renders a server as a YAML mapping, fields in a fixed order
// and map keys sorted, so that the output is stable.
func serverNode(s MCPServer) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	put := func(k string, v *yaml.Node) { n.Content = append(n.Content, scalar(k), v) }
	put("name", scalar(s.Name))
	if s.Command != "" {
		put("command", scalar(s.Command))
	}
	if len(s.Args) > 0 {
		args := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range s.Args {
			args.Content = append(args.Content, scalar(a))
		}
		put("args", args)
	}
	if len(s.Env) > 0 {
		put("env", mapNode(s.Env))
	}
	if s.Dir != "" {
		put("dir", scalar(s.Dir))
	}
	if s.URL != "" {
		put("url", scalar(s.URL))
	}
	if len(s.Headers) > 0 {
		put("headers", mapNode(s.Headers))
	}
	return n
}

func mapNode(m map[string]string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		n.Content = append(n.Content, scalar(k), scalar(m[k]))
	}
	return n
}

// scalar is a string node; the encoder quotes it where YAML would read it
// as something else (a number, a boolean, null).
func scalar(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	return n
}

// objectEntry is one member of a JSON object.
type objectEntry struct {
	key   string
	value json.RawMessage
}

// orderedObject returns the members of a JSON object in the order they
// are written; a key written twice is an error, since a host would keep
// only one of them.
func orderedObject(raw json.RawMessage) ([]objectEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil, err
	}
	var out []objectEntry
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("server %q is written twice", key)
		}
		seen[key] = true
		out = append(out, objectEntry{key, value})
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) { // the closing brace
		return nil, err
	}
	return out, nil
}

// stripJSONC returns data without the comments (// and /* */) and the
// trailing commas that VS Code's JSON files allow, so that the standard
// decoder reads it. Strings are left as they are; a comment left open is
// an error.
func stripJSONC(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !bytes.Contains(data, []byte("/")) && !bytes.Contains(data, []byte(",")) {
		return data, nil
	}
	out := make([]byte, 0, len(data))
	// lastComma is the index in out of a comma that may turn out to be
	// trailing, or -1.
	lastComma := -1
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			end := i + 1
			for end < len(data) && data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end, len(data)-1)
			out = append(out, data[i:end+1]...)
			i = end
			lastComma = -1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i-- // keep the newline
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return nil, errors.New("a /* comment is not closed")
			}
			// The comment's line breaks are kept, so that lines
			// counted in the output are the file's.
			out = append(out, ' ')
			out = append(out, bytes.Repeat([]byte("\n"), bytes.Count(data[i+2:i+2+end], []byte("\n")))...)
			i += 2 + end + 1
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			out = append(out, c)
			lastComma = -1
		case c == ',':
			out = append(out, c)
			lastComma = len(out) - 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, c)
		default:
			out = append(out, c)
			lastComma = -1
		}
	}
	return out, nil
}

// jsonKeyLines returns the line of each member of the objects of a JSON
// document, by the path of keys leading to it joined by NUL bytes
// ("mcpServers\x00github\x00command"); members of arrays are not
// recorded. A document that does not decode gives what was read.
func jsonKeyLines(data []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object, expectKey bool
	}
	var stack []*frame
	var path []string
	lineAt := func(off int64) int {
		i := int(off)
		for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
			i++
		}
		return 1 + bytes.Count(data[:min(i, len(data))], []byte("\n"))
	}
	// valueDone ends a member's value in its object.
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expectKey = true
			path = path[:len(path)-1]
		}
	}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return lines
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && !top.object {
					path = append(path, "[]")
				}
				stack = append(stack, &frame{object: v == '{', expectKey: true})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && !stack[len(stack)-1].object {
					path = path[:len(path)-1]
				}
				valueDone()
			}
		case string:
			if top != nil && top.object && top.expectKey {
				top.expectKey = false
				path = append(path, v)
				lines[strings.Join(path, "\x00")] = lineAt(off)
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

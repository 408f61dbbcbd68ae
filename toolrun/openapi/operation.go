package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// methods are the HTTP methods an operation may have, in the order tools
// are made for one path.
var methods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch}

// registrations makes the tools of every operation, in the order of the
// sorted paths and of methods.
func (im *importer) registrations() ([]toolindex.Registration, error) {
	if im.doc.Paths == nil {
		return nil, nil
	}
	paths := im.doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for path := range paths {
		keys = append(keys, path)
	}
	sort.Strings(keys)
	var regs []toolindex.Registration
	names := map[string]bool{}
	for _, path := range keys {
		item := paths[path]
		if item == nil {
			continue
		}
		ops := item.Operations()
		var unsupported []string
		for method, op := range ops {
			if op != nil && !slices.Contains(methods, method) {
				unsupported = append(unsupported, method)
			}
		}
		sort.Strings(unsupported)
		for _, method := range unsupported {
			im.warn(method+" "+path, "method %s is not supported", method)
		}
		for _, method := range methods {
			op := ops[method]
			if op == nil {
				continue
			}
			if err := errors.FromContext(im.ctx, opImport, nil); err != nil {
				return nil, err
			}
			where := method + " " + path
			reg, err := im.operation(method, path, item, op)
			if err != nil {
				im.warn(where, "left out: %v", err)
				continue
			}
			if name := reg.Tool.Name; names[name] {
				reg.Tool.Name = uniqueName(name, names)
				im.warn(where, "tool name %q is taken by another operation: named %q", name, reg.Tool.Name)
			}
			names[reg.Tool.Name] = true
			regs = append(regs, reg)
		}
	}
	return regs, nil
}

// uniqueName returns name with the smallest suffix _2, _3, ... not taken.
func uniqueName(name string, taken map[string]bool) string {
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		candidate := name
		if len(candidate)+len(suffix) > toolmodel.MaxNameLen {
			candidate = candidate[:toolmodel.MaxNameLen-len(suffix)]
		}
		if candidate += suffix; !taken[candidate] {
			return candidate
		}
	}
}

// operation makes the registration of one operation.
func (im *importer) operation(method, path string, item *openapi3.PathItem, op *openapi3.Operation) (toolindex.Registration, error) {
	where := method + " " + path
	base, err := im.baseURL(op, item)
	if err != nil {
		return toolindex.Registration{}, err
	}
	backend := &toolmodel.HTTPBackend{
		BaseURL: base,
		Method:  method,
		Path:    path,
		Timeout: toolmodel.Duration(im.cfg.timeout),
	}
	if len(im.cfg.headers) > 0 {
		backend.Headers = maps.Clone(im.cfg.headers)
	}
	auth, note := im.auth(op, base)
	backend.Auth = auth
	if note != "" {
		im.warn(where, "%s", note)
	}

	input, err := im.inputSchema(where, path, item, op, backend)
	if err != nil {
		return toolindex.Registration{}, err
	}
	output, err := im.outputSchema(op)
	if err != nil {
		return toolindex.Registration{}, err
	}

	name := sanitizeName(op.OperationID)
	if name == "" {
		name = derivedName(method, path)
	}
	tool := toolmodel.Tool{
		Tool: mcp.Tool{
			Name:        name,
			Description: description(op, where),
			InputSchema: input,
			Annotations: annotations(method),
		},
		Namespace: im.namespace,
		Tags:      toolmodel.NormalizeTags(op.Tags),
		Metadata:  metadata(method, path, op),
	}
	if im.doc.Info != nil {
		tool.Version = im.doc.Info.Version
	}
	if output != nil {
		tool.OutputSchema = output
	}
	reg := toolindex.Registration{Tool: tool, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: backend}}
	if err := reg.Tool.Validate(); err != nil {
		return toolindex.Registration{}, err
	}
	if err := reg.Backend.Validate(); err != nil {
		return toolindex.Registration{}, err
	}
	return reg, nil
}

// description is the summary followed by the description, the first
// line marked "(deprecated)" for a deprecated operation, so that the
// one-line summaries of a search show it.
func description(op *openapi3.Operation, where string) string {
	var parts []string
	summary, desc := strings.TrimSpace(op.Summary), strings.TrimSpace(op.Description)
	if summary != "" {
		parts = append(parts, summary)
	}
	if desc != "" && desc != summary {
		parts = append(parts, desc)
	}
	if len(parts) == 0 {
		parts = append(parts, where)
	}
	if op.Deprecated {
		first, rest, _ := strings.Cut(parts[0], "\n")
		parts[0] = strings.TrimSuffix(first, ".") + " (deprecated)"
		if rest != "" {
			parts[0] += "\n" + rest
		}
	}
	return strings.Join(parts, "\n\n")
}

// annotations gives the hints a method implies: safe methods only read,
// PUT and DELETE are idempotent, and every API is an open world.
func annotations(method string) *mcp.ToolAnnotations {
	openWorld := true
	a := &mcp.ToolAnnotations{OpenWorldHint: &openWorld}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		a.ReadOnlyHint = true
	case http.MethodPut, http.MethodDelete:
		a.IdempotentHint = true
	}
	return a
}

// metadata records where a tool comes from in the document.
func metadata(method, path string, op *openapi3.Operation) map[string]any {
	m := map[string]any{"method": method, "path": path}
	if op.OperationID != "" {
		m["operationId"] = op.OperationID
	}
	if op.Deprecated {
		m["deprecated"] = true
	}
	return map[string]any{"openapi": m}
}

// baseURL returns the API's base URL for an operation: the option's, else
// the first server of the operation, of its path, or of the document,
// with its variables at their defaults and resolved against the
// document's URL.
func (im *importer) baseURL(op *openapi3.Operation, item *openapi3.PathItem) (string, error) {
	if im.cfg.baseURL != "" {
		return resolveURL(im.cfg.baseURL, "")
	}
	servers := im.doc.Servers
	if len(item.Servers) > 0 {
		servers = item.Servers
	}
	if op.Servers != nil && len(*op.Servers) > 0 {
		servers = *op.Servers
	}
	raw := "/"
	if len(servers) > 0 && servers[0] != nil {
		s := servers[0]
		raw = s.URL
		for name, v := range s.Variables {
			if v != nil {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
		if strings.ContainsAny(raw, "{}") {
			return "", fmt.Errorf("server URL %q has a variable without a default", s.URL)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server URL %q: %w", raw, err)
	}
	if !u.IsAbs() {
		if im.cfg.docURL == nil {
			return "", fmt.Errorf("server URL %q is relative: give the API's URL with WithBaseURL", raw)
		}
		u = im.cfg.docURL.ResolveReference(u)
	}
	return resolveURL(strings.TrimSuffix(u.String(), "/"), "")
}

// bodyNames are the names tried, in turn, for the argument holding a
// request body that cannot be spread over the arguments.
var bodyNames = []string{"body", "requestBody", "request_body"}

// mergeableKeys are the keywords of an object body schema whose
// properties can become top-level arguments without losing a constraint.
var mergeableKeys = []string{"type", "properties", "required", "additionalProperties", "description", "title", "examples"}

// inputSchema builds the input schema of an operation from its
// parameters and its JSON or form request body, and fills in where
// backend sends each argument.
func (im *importer) inputSchema(where, path string, item *openapi3.PathItem, op *openapi3.Operation, backend *toolmodel.HTTPBackend) (json.RawMessage, error) {
	params, err := parameters(item.Parameters, op.Parameters)
	if err != nil {
		return nil, err
	}
	params = im.pathParameters(where, path, params)
	var refs []any
	var kept []*openapi3.Parameter
	for _, p := range params {
		switch p.In {
		case openapi3.ParameterInPath, openapi3.ParameterInQuery, openapi3.ParameterInHeader:
		case openapi3.ParameterInCookie:
			if p.Required {
				return nil, fmt.Errorf("cookie parameter %q is required, and cookies are not supported", p.Name)
			}
			im.warn(where, "cookie parameter %q is ignored", p.Name)
			continue
		default:
			return nil, fmt.Errorf("parameter %q is in %q, which is not a parameter location", p.Name, p.In)
		}
		if p.In == openapi3.ParameterInHeader && ignoredHeader(p.Name) {
			continue // OpenAPI says these header parameters are ignored.
		}
		refs = append(refs, schemaOf(p.Schema, p.Content))
		kept = append(kept, p)
	}
	var body *openapi3.RequestBody
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		body = op.RequestBody.Value
		media, encoding := bodyMedia(body.Content)
		switch {
		case media == nil && body.Required:
			return nil, fmt.Errorf("the request body is %s, and only JSON and form bodies are supported", contentTypes(body.Content))
		case media == nil:
			im.warn(where, "the optional request body (%s) is ignored: only JSON and form bodies are supported", contentTypes(body.Content))
			body = nil
		default:
			refs = append(refs, schemaOf(media.Schema, nil))
			backend.BodyEncoding = encoding
		}
	}

	conv := newConverter(im.raw, im.v30, request)
	converted, defs, err := conv.convertAll(refs)
	if err != nil {
		return nil, err
	}
	props := map[string]any{}
	var required []string
	for i, p := range kept {
		if _, dup := props[p.Name]; dup {
			return nil, fmt.Errorf("two parameters are named %q", p.Name)
		}
		schema := converted[i]
		if schema == nil {
			schema = map[string]any{}
		}
		props[p.Name] = annotate(schema, p.Description, p.Deprecated)
		if p.Required || p.In == openapi3.ParameterInPath {
			required = append(required, p.Name)
		}
		switch p.In {
		case openapi3.ParameterInQuery:
			backend.QueryParams = append(backend.QueryParams, p.Name)
		case openapi3.ParameterInHeader:
			backend.HeaderParams = append(backend.HeaderParams, p.Name)
		}
	}
	schema := map[string]any{"type": "object"}
	closed := true
	if body != nil {
		bodySchema := rootOf(converted[len(kept)], defs)
		if obj, ok := bodySchema.(map[string]any); backend.BodyEncoding == toolmodel.BodyForm && (!ok || !isObject(obj)) {
			return nil, errors.New("the form request body is not described as an object")
		}
		if obj, ok := mergeable(bodySchema, props); ok {
			bodyProps, _ := obj["properties"].(map[string]any)
			for name, p := range bodyProps {
				props[name] = p
			}
			required = append(required, asStrings(obj["required"])...)
			if extra, ok := obj["additionalProperties"]; ok {
				schema["additionalProperties"] = extra
			}
			closed = false
		} else {
			name := bodyName(props)
			if name == "" {
				return nil, errors.New("no name is free for the request body argument")
			}
			props[name] = annotate(bodySchema, body.Description, false)
			if body.Required {
				required = append(required, name)
			}
			backend.BodyParam = name
		}
	}
	if closed {
		// Every argument has its place: any other one is a mistake, which
		// the executor would otherwise send as a JSON body.
		schema["additionalProperties"] = false
	}
	schema["properties"] = props
	if len(required) > 0 {
		schema["required"] = required
	}
	if len(defs) > 0 {
		schema["$defs"] = defs
	}
	return im.compile(schema)
}

// outputSchema returns the schema of the operation's first successful
// JSON response when it describes an object, as MCP requires of an output
// schema; nil otherwise.
func (im *importer) outputSchema(op *openapi3.Operation) (json.RawMessage, error) {
	if op.Responses == nil {
		return nil, nil
	}
	responses := op.Responses.Map()
	var codes []string
	for code := range responses {
		if len(code) == 3 && code[0] == '2' {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes) // "200" < "201" < ... < "2XX"
	for _, code := range codes {
		ref := responses[code]
		if ref == nil || ref.Value == nil {
			continue
		}
		media := jsonMedia(ref.Value.Content)
		if media == nil || media.Schema == nil {
			continue
		}
		conv := newConverter(im.raw, im.v30, response)
		converted, defs, err := conv.convertAll([]any{schemaOf(media.Schema, nil)})
		if err != nil {
			return nil, err
		}
		root, ok := rootOf(converted[0], defs).(map[string]any)
		if !ok || !isObject(root) {
			return nil, nil
		}
		root["type"] = "object"
		if len(defs) > 0 {
			root["$defs"] = defs
		}
		return im.compile(root)
	}
	return nil, nil
}

// compile encodes a schema and checks that the runner's validator can
// use it, so that a tool that imports is a tool that runs.
func (im *importer) compile(schema map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if err := im.validator.Validate(json.RawMessage(raw), map[string]any{}); errors.CodeOf(err) == errors.InvalidArgument {
		return nil, fmt.Errorf("unusable schema: %w", err)
	}
	return raw, nil
}

// parameters merges the parameters of a path and of one of its
// operations: the operation's override the path's of the same name and
// location.
func parameters(pathParams, opParams openapi3.Parameters) ([]*openapi3.Parameter, error) {
	var out []*openapi3.Parameter
	for _, list := range []openapi3.Parameters{pathParams, opParams} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				return nil, errors.New("a parameter is empty")
			}
			p := ref.Value
			if p.Name == "" {
				return nil, errors.New("a parameter has no name")
			}
			out = slices.DeleteFunc(out, func(q *openapi3.Parameter) bool { return q.Name == p.Name && q.In == p.In })
			out = append(out, p)
		}
	}
	return out, nil
}

// pathParameters reconciles the path parameters with the path template:
// a placeholder without a declared parameter gets a string one, and a
// declared parameter without a placeholder is dropped, as the executor
// fills only placeholders (it would otherwise send the argument in the
// body).
func (im *importer) pathParameters(where, path string, params []*openapi3.Parameter) []*openapi3.Parameter {
	var placeholders []string
	for rest := path; ; {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest, '}')
		if open < 0 || end < open {
			break
		}
		placeholders = append(placeholders, rest[open+1:end])
		rest = rest[end+1:]
	}
	out := slices.DeleteFunc(slices.Clone(params), func(p *openapi3.Parameter) bool {
		if p.In == openapi3.ParameterInPath && !slices.Contains(placeholders, p.Name) {
			im.warn(where, "path parameter %q is not in the path: ignored", p.Name)
			return true
		}
		return false
	})
	for _, name := range placeholders {
		declared := slices.ContainsFunc(out, func(p *openapi3.Parameter) bool {
			return p.In == openapi3.ParameterInPath && p.Name == name
		})
		if !declared && name != "" {
			im.warn(where, "path parameter %q is not declared: taken as a string", name)
			out = append(out, &openapi3.Parameter{Name: name, In: openapi3.ParameterInPath, Required: true,
				Schema: openapi3.NewStringSchema().NewRef()})
		}
	}
	return out
}

// schemaOf returns the JSON of a parameter's or body's schema, given
// directly or through a content map; nil when there is none.
func schemaOf(schema *openapi3.SchemaRef, content openapi3.Content) any {
	if schema == nil && len(content) > 0 {
		keys := make([]string, 0, len(content))
		for k := range content {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if m := content[keys[0]]; m != nil {
			schema = m.Schema
		}
	}
	if schema == nil {
		return nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// bodyMedia returns the media type of a request body the executor can
// send, and how to encode it: JSON (see [jsonMedia]) or else an HTML
// form. It returns nil when there is neither.
func bodyMedia(content openapi3.Content) (*openapi3.MediaType, toolmodel.HTTPBodyEncoding) {
	if media := jsonMedia(content); media != nil {
		return media, toolmodel.BodyJSON
	}
	for _, k := range slices.Sorted(maps.Keys(content)) {
		if mt, _, err := mime.ParseMediaType(k); err == nil && mt == "application/x-www-form-urlencoded" {
			return content[k], toolmodel.BodyForm
		}
	}
	return nil, toolmodel.BodyJSON
}

// jsonMedia returns the JSON media type of a content map, preferring
// application/json; it returns nil when there is none.
func jsonMedia(content openapi3.Content) *openapi3.MediaType {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var best string
	rank := 0
	for _, k := range keys {
		mt, _, err := mime.ParseMediaType(k)
		if err != nil {
			continue
		}
		r := 0
		switch {
		case mt == "application/json":
			r = 3
		case strings.HasSuffix(mt, "+json"):
			r = 2
		case mt == "*/*" || mt == "application/*":
			r = 1
		}
		if r > rank {
			best, rank = k, r
		}
	}
	if rank == 0 {
		return nil
	}
	return content[best]
}

func contentTypes(content openapi3.Content) string {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "without a media type"
	}
	return strings.Join(keys, " or ")
}

// ignoredHeader reports whether OpenAPI says a header parameter of this
// name is ignored.
func ignoredHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Content-Type", "Authorization":
		return true
	}
	return false
}

// annotate adds a parameter's description and deprecation to its schema,
// unless the schema has its own.
func annotate(schema any, desc string, deprecated bool) any {
	m, ok := schema.(map[string]any)
	if !ok || (desc == "" && !deprecated) {
		return schema
	}
	out := make(map[string]any, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	if _, has := out["description"]; !has && desc != "" {
		out["description"] = desc
	}
	if deprecated {
		out["deprecated"] = true
	}
	return out
}

// mergeable returns a body schema as an object whose properties can become
// top-level arguments: an object schema with no other constraint than its
// properties, none of which is named like a parameter.
func mergeable(schema any, params map[string]any) (map[string]any, bool) {
	obj, ok := schema.(map[string]any)
	if !ok || !isObject(obj) {
		return nil, false
	}
	for k := range obj {
		if !slices.Contains(mergeableKeys, k) {
			return nil, false
		}
	}
	props, _ := obj["properties"].(map[string]any)
	for name := range props {
		if _, clash := params[name]; clash {
			return nil, false
		}
	}
	return obj, true
}

// isObject reports whether a schema describes only objects: its type is
// "object", or it has properties and no type.
func isObject(schema map[string]any) bool {
	switch t := schema["type"].(type) {
	case string:
		return t == "object"
	case nil:
		_, hasProps := schema["properties"]
		return hasProps && schema["allOf"] == nil && schema["anyOf"] == nil && schema["oneOf"] == nil
	}
	return false
}

// bodyName returns the first name of bodyNames that no parameter has.
func bodyName(props map[string]any) string {
	for _, name := range bodyNames {
		if _, taken := props[name]; !taken {
			return name
		}
	}
	return ""
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

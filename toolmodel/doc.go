// Package toolmodel defines what a tool is in metatools: its definition,
// its identity, the backends that can execute it, and the validation of
// its inputs and outputs.
//
// A [Tool] is an MCP tool (the official go-sdk's mcp.Tool) with a
// namespace, a version, tags and free metadata. It is plain data: it
// marshals to the MCP tool JSON plus those fields and back without loss,
// so catalogues can be stored, shipped and replayed. Its YAML form (with
// go.yaml.in/yaml/v3) is that same document written as YAML, and round-trips
// the same way, so a tools file may be written in either. What executes a tool
// is described separately, also as data, by a [ToolBackend]: an MCP server,
// a provider, a local Go function, an HTTP endpoint or a gRPC method.
//
// Tool IDs are "namespace:name", or just "name" ([ToolID], [ParseToolID]).
// Names and namespaces are 1 to 128 ASCII letters, digits, '_', '.' or '-'.
//
//	t, err := toolmodel.DecodeTool([]byte(`{"name":"create_issue","namespace":"github",
//		"inputSchema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}`))
//	if err != nil { ... }
//	v := toolmodel.NewValidator()
//	err = v.ValidateInput(&t, map[string]any{"title": "Crash on start"})
//
// # Validation
//
// [SchemaValidator] is the validation extension point; [Validator] is the
// default, on github.com/google/jsonschema-go. It accepts JSON Schema
// 2020-12 and draft-07, never follows a $ref outside the schema (no network
// access, ever), lists every failing property in its error, and compiles
// each distinct schema once: validating against a known schema costs only
// the validation itself.
//
// An error names each failing value by its path in the instance, a JSON
// Pointer (RFC 6901): "/list/0/title: type: ...". A "~" in a property name
// is written "~0" and a "/" is written "~1", so that "/a~1b" is the
// property "a/b" and "/a/b" the property "b" of the property "a".
//
// # How to plug in your own
//
// Implement [SchemaValidator] (for another JSON Schema library, or to add
// formats) and pass it wherever a validator is accepted. Its contract: safe
// for concurrent use, never modifies its arguments, never fetches anything,
// reports an instance that fails with code validation and a schema that
// cannot be used with code invalid_argument.
package toolmodel

package trust

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// Kind is the kind of an upstream item that the gateway puts in front of
// the model.
type Kind string

// The kinds of item.
const (
	// KindTool is an MCP tool (or an OpenAPI operation or gRPC method
	// offered as one).
	KindTool Kind = "tool"
	// KindPrompt is an MCP prompt.
	KindPrompt Kind = "prompt"
	// KindResourceTemplate is an MCP resource template.
	KindResourceTemplate Kind = "template"
)

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool {
	return k == KindTool || k == KindPrompt || k == KindResourceTemplate
}

// Item is what the gateway shows the model of one upstream tool, prompt or
// resource template: the fields a fingerprint covers, plus where it comes
// from. The catalogue fills one per listed item, with [ToolItem],
// [PromptItem] and [ResourceTemplateItem] or by hand (an OpenAPI
// operation, a gRPC method).
//
// Items are plain values; nothing in this package keeps or changes the
// caller's Item.
type Item struct {
	// Upstream is the configured name of the upstream the item comes from.
	// It is part of the item's identity, not of its fingerprint.
	Upstream string `json:"upstream"`
	// Namespace is the namespace the gateway shows the item under ("" for
	// an upstream that keeps its names). It is used only by the name
	// checks ([Names]); it is neither identity nor fingerprint.
	Namespace string `json:"namespace,omitempty"`
	// Kind is the kind of item.
	Kind Kind `json:"kind"`
	// Name is the item's name as the upstream lists it.
	Name string `json:"name"`
	// Title is the human-readable title (for a tool, the title or else
	// its annotations' title).
	Title string `json:"title,omitempty"`
	// Description is the text the model reads.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of a tool's arguments.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the JSON Schema of a tool's structured result.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are a tool's annotations as a JSON object.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Arguments are a prompt's arguments.
	Arguments []Argument `json:"arguments,omitempty"`
	// URITemplate is a resource template's RFC 6570 template.
	URITemplate string `json:"uriTemplate,omitempty"`
	// MIMEType is a resource template's MIME type.
	MIMEType string `json:"mimeType,omitempty"`
}

// Argument is one argument of a prompt.
type Argument struct {
	// Name is the argument's name.
	Name string `json:"name"`
	// Title is its human-readable title.
	Title string `json:"title,omitempty"`
	// Description is the text the model reads about it.
	Description string `json:"description,omitempty"`
	// Required reports whether the prompt needs it.
	Required bool `json:"required,omitempty"`
}

// ID returns the item's identity as operators type it (see [MakeID]).
func (it *Item) ID() string { return MakeID(it.Upstream, it.Kind, it.Name) }

// ExposedName returns the name the model sees: "namespace:name", or the
// name alone when the namespace is empty.
func (it *Item) ExposedName() string {
	if it.Namespace == "" {
		return it.Name
	}
	return it.Namespace + ":" + it.Name
}

// MakeID returns the identity of an item in the pin store and in the
// review and approve commands: "upstream:name" for a tool (the tool's
// catalogue ID when its namespace is the upstream's name),
// "prompt:upstream:name" for a prompt and "template:upstream:name" for a
// resource template.
func MakeID(upstream string, kind Kind, name string) string {
	if kind == KindTool {
		return upstream + ":" + name
	}
	return string(kind) + ":" + upstream + ":" + name
}

// ParseID splits an ID made by [MakeID]. An ID that starts with "prompt:"
// or "template:" and has a second colon is a prompt or a resource
// template; any other "upstream:name" is a tool. (Upstream names have no
// colon, and MCP tool names have none either, so the reading is
// unambiguous.) Errors have code [errors.InvalidArgument].
func ParseID(id string) (upstream string, kind Kind, name string, err error) {
	first, rest, ok := strings.Cut(id, ":")
	if !ok || first == "" || rest == "" {
		return "", "", "", errors.Errorf(errors.InvalidArgument, "item ID %q: want upstream:name, prompt:upstream:name or template:upstream:name", id)
	}
	if k := Kind(first); k == KindPrompt || k == KindResourceTemplate {
		if up, n, ok := strings.Cut(rest, ":"); ok {
			if up == "" || n == "" {
				return "", "", "", errors.Errorf(errors.InvalidArgument, "item ID %q: empty upstream or name", id)
			}
			return up, k, n, nil
		}
	}
	return first, KindTool, rest, nil
}

// ToolItem returns the item of an upstream's MCP tool. Its schemas may be
// any value that marshals to JSON (the go-sdk client gives maps, a server
// may hold [json.RawMessage] or a *jsonschema.Schema). The annotations are
// written with every hint explicit, so the fingerprint does not depend on
// how the SDK omits false hints. Its Namespace is the upstream's name, the
// catalogue's default: set it to the namespace the tool is shown under
// ("" for an upstream that keeps its names) before the name checks. It
// fails only when a schema does not marshal to JSON.
func ToolItem(upstream string, t *mcp.Tool) (Item, error) {
	it := Item{Upstream: upstream, Namespace: upstream, Kind: KindTool, Name: t.Name, Title: t.Title, Description: t.Description}
	var err error
	if it.InputSchema, err = rawJSON(t.InputSchema); err != nil {
		return Item{}, fmt.Errorf("tool %q: inputSchema: %w", t.Name, err)
	}
	if it.OutputSchema, err = rawJSON(t.OutputSchema); err != nil {
		return Item{}, fmt.Errorf("tool %q: outputSchema: %w", t.Name, err)
	}
	if a := t.Annotations; a != nil {
		m := map[string]any{"readOnlyHint": a.ReadOnlyHint, "idempotentHint": a.IdempotentHint}
		if a.DestructiveHint != nil {
			m["destructiveHint"] = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			m["openWorldHint"] = *a.OpenWorldHint
		}
		if a.Title != "" {
			m["title"] = a.Title
			if it.Title == "" {
				it.Title = a.Title
			}
		}
		it.Annotations, _ = json.Marshal(m) // a map of strings and bools always marshals
	}
	return it, nil
}

// PromptItem returns the item of an upstream's MCP prompt, its Namespace
// the upstream's name (as [ToolItem]).
func PromptItem(upstream string, p *mcp.Prompt) Item {
	it := Item{Upstream: upstream, Namespace: upstream, Kind: KindPrompt, Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		if a != nil {
			it.Arguments = append(it.Arguments, Argument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
	}
	return it
}

// ResourceTemplateItem returns the item of an upstream's MCP resource
// template, its Namespace the upstream's name (as [ToolItem]).
func ResourceTemplateItem(upstream string, rt *mcp.ResourceTemplate) Item {
	return Item{Upstream: upstream, Namespace: upstream, Kind: KindResourceTemplate, Name: rt.Name, Title: rt.Title,
		Description: rt.Description, URITemplate: rt.URITemplate, MIMEType: rt.MIMEType}
}

// rawJSON marshals v, keeping a json.RawMessage as it is; nil and JSON null
// give nil.
func rawJSON(v any) (json.RawMessage, error) {
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		b = v
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	if s := strings.TrimSpace(string(b)); s == "" || s == "null" {
		return nil, nil
	}
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	return json.RawMessage(b), nil
}

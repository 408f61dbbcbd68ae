package tooldocs

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// SourceManual is the conventional [Entry.Source] of documentation written
// by hand. Other sources name where documentation was imported from, as
// "kind:name": "openapi:petstore.yaml", "mcp:github".
const SourceManual = "manual"

// Entry is the documentation registered for one tool: what a tool
// definition alone does not say.
//
// The tool is named by ToolID, or given whole in Tool. Documentation for a
// tool whose definition lives elsewhere (in a toolindex.Index) sets only
// ToolID; the Store then resolves the definition through its
// [ToolResolver], at registration to validate the examples and at every
// read to show the current definition. An entry that carries its own Tool
// is self-contained and that definition is the one shown.
type Entry struct {
	// ToolID is the documented tool's ID. It may be left empty when Tool
	// is set; when both are set they must agree.
	ToolID string `json:"toolId,omitempty"`
	// Tool is the tool's definition, when the Store should keep it.
	Tool *toolmodel.Tool `json:"tool,omitempty"`
	// Examples show typical calls. Each one's arguments must satisfy the
	// tool's input schema.
	Examples []Example `json:"examples,omitempty"`
	// Notes are free-text remarks: caveats, rate limits, advice. Blank
	// notes are dropped.
	Notes []string `json:"notes,omitempty"`
	// Refs point to documentation elsewhere.
	Refs []ExternalRef `json:"refs,omitempty"`
	// Source says where the documentation came from, such as
	// "openapi:petstore.yaml", "mcp:github" or [SourceManual]. It is
	// free-form but single-line; [Store.RemoveSource] removes every entry
	// of one source.
	Source string `json:"source,omitempty"`
}

// Example is a sample call of a tool.
type Example struct {
	// Name identifies the example among the tool's examples; it is
	// required and unique per tool.
	Name string `json:"name"`
	// Description says what the example shows.
	Description string `json:"description,omitempty"`
	// Args are the call's arguments. They must satisfy the tool's input
	// schema. The Store keeps them as decoded JSON (numbers become
	// float64), so they read back as map[string]any, []any, string,
	// float64, bool and nil whatever was registered.
	Args map[string]any `json:"args"`
	// Result, when set, is the structured result the call returns. When
	// the tool has an output schema, Result must satisfy it.
	Result any `json:"result,omitempty" jsonschema:"the structured result the call returns"`
}

// ExternalRef points to documentation outside the Store.
type ExternalRef struct {
	// Title is the link text; the URL stands in when it is empty.
	Title string `json:"title,omitempty"`
	// URL is an absolute http or https URL.
	URL string `json:"url"`
}

// Clone returns a deep copy of e: changing the copy's arguments or
// result never changes e.
func (e Example) Clone() Example {
	c := e
	c.Args, _ = toolmodel.CloneJSON(e.Args).(map[string]any)
	c.Result = toolmodel.CloneJSON(e.Result)
	return c
}

// Clone returns a deep copy of e.
func (e Entry) Clone() Entry {
	c := e
	if e.Tool != nil {
		t := e.Tool.Clone()
		c.Tool = &t
	}
	c.Examples = cloneExamples(e.Examples)
	c.Notes = slices.Clone(e.Notes)
	c.Refs = slices.Clone(e.Refs)
	return c
}

func cloneExamples(in []Example) []Example {
	if in == nil {
		return nil
	}
	out := make([]Example, len(in))
	for i, ex := range in {
		out[i] = ex.Clone()
	}
	return out
}

// normalizeJSON returns v as decoded JSON: a fresh value sharing nothing
// with v, holding only the types encoding/json decodes into any.
func normalizeJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkRef reports what is wrong with a reference, if anything.
func checkRef(r ExternalRef) error {
	if r.URL == "" {
		return errors.New("URL is empty")
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return fmt.Errorf("URL %q: %w", r.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("URL %q: scheme must be http or https", r.URL)
	}
	if u.Host == "" {
		return fmt.Errorf("URL %q: no host", r.URL)
	}
	if strings.ContainsAny(r.Title, "\r\n") {
		return fmt.Errorf("title %q: must be a single line", r.Title)
	}
	return nil
}

// normalizeExamples checks a tool's examples against its schemas and
// returns them as the Store keeps them: arguments and results normalized
// to decoded JSON. The error names the failing example and keeps the
// validator's code: [errors.Validation] for arguments or a result that do
// not satisfy their schema.
func normalizeExamples(v toolmodel.SchemaValidator, tool *toolmodel.Tool, examples []Example) ([]Example, error) {
	if len(examples) == 0 {
		return nil, nil
	}
	out := make([]Example, 0, len(examples))
	seen := make(map[string]bool, len(examples))
	for i, ex := range examples {
		name := strings.TrimSpace(ex.Name)
		switch {
		case name == "":
			return nil, errors.Errorf(errors.InvalidArgument, "examples[%d]: name is empty", i)
		case seen[name]:
			return nil, errors.Errorf(errors.InvalidArgument, "examples[%d]: name %q is used twice", i, name)
		}
		seen[name] = true
		norm := Example{Name: name, Description: strings.TrimSpace(ex.Description)}
		args, err := normalizeJSON(ex.Args)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "example %q: args: %w", name, err)
		}
		norm.Args, _ = args.(map[string]any) // nil args stay nil
		if err := v.ValidateInput(tool, norm.Args); err != nil {
			return nil, exampleError(name, "args", err)
		}
		if ex.Result != nil {
			if norm.Result, err = normalizeJSON(ex.Result); err != nil {
				return nil, errors.Errorf(errors.InvalidArgument, "example %q: result: %w", name, err)
			}
			if err := v.ValidateOutput(tool, norm.Result); err != nil {
				return nil, exampleError(name, "result", err)
			}
		}
		out = append(out, norm)
	}
	return out, nil
}

// exampleError reports a validator's error about an example. It keeps the
// error's code but not its operation and tool, which the Store's own error
// states once.
func exampleError(name, part string, err error) error {
	cause := err
	var e *errors.Error
	if errors.As(err, &e) && e.Err != nil {
		cause = e.Err
	}
	return errors.E(errors.CodeOf(err), fmt.Errorf("example %q: %s: %w", name, part, cause))
}

// normalizeNotes trims notes and drops blank ones.
func normalizeNotes(notes []string) []string {
	var out []string
	for _, n := range notes {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// normalizeRefs trims references and checks them.
func normalizeRefs(refs []ExternalRef) ([]ExternalRef, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]ExternalRef, len(refs))
	for i, r := range refs {
		r = ExternalRef{Title: strings.TrimSpace(r.Title), URL: strings.TrimSpace(r.URL)}
		if err := checkRef(r); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "refs[%d]: %w", i, err)
		}
		out[i] = r
	}
	return out, nil
}

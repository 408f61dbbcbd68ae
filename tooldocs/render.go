package tooldocs

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Rendering limits: an enumeration longer than these is shortened, since
// a long list of values costs tokens and rarely helps to build a call.
const (
	maxSignatureEnum = 5  // literal values shown as a type in a signature
	maxListedEnum    = 10 // values listed in a parameter line
)

// Markdown renders the Doc as compact Markdown for a language model:
//
//   - every level: a heading with the ID and title, the one-line summary
//     and the tags;
//   - from [LevelSchema] on: the call signature ([Doc.Signature]), one line
//     per parameter (type, required, format, default, allowed values,
//     description) with nested properties indented one level down, and
//     the result's type and fields;
//   - at [LevelFull]: the full description in place of the summary, then
//     examples as calls, notes, references as links, behaviour hints,
//     version, source, and the input and output schemas as compact JSON,
//     which state what the parameter lines leave out (constraints, deeper
//     nesting, alternatives).
//
// Empty sections are left out, and the output is deterministic, so that
// the Store's token estimates ([Store.Costs]) hold for it.
func (d *Doc) Markdown() string { return d.markdown(d.Level) }

// markdown renders d as if it were built at level, which must not exceed
// d.Level; the Store prices a full Doc at every level this way without
// copying it.
func (d *Doc) markdown(level DetailLevel) string {
	var b strings.Builder
	b.WriteString("## ")
	b.WriteString(d.ID)
	if d.Title != "" {
		b.WriteString(" — ")
		b.WriteString(d.Title)
	}
	b.WriteByte('\n')
	// At the full level the description replaces its first sentence.
	desc := strings.TrimSpace(d.Description)
	if level < LevelFull || desc == "" {
		desc = d.Summary
	}
	line(&b, desc)
	if len(d.Tags) > 0 {
		line(&b, "Tags: "+strings.Join(d.Tags, ", "))
	}
	if level >= LevelSchema {
		b.WriteString("\n`")
		b.WriteString(d.Signature())
		b.WriteString("`\n")
		if d.Input != nil && len(d.Input.Params) > 0 {
			b.WriteString("\nParameters:\n")
			writeParams(&b, d.Input.Params, "")
		}
		if d.Output != nil {
			b.WriteString("\nReturns ")
			b.WriteString(typesExpr(d.Output.Types))
			if d.Output.Description != "" {
				b.WriteString(": ")
				b.WriteString(oneLine(d.Output.Description))
			} else if len(d.Output.Params) > 0 {
				b.WriteByte(':')
			}
			b.WriteByte('\n')
			writeParams(&b, d.Output.Params, "")
		}
	}
	if level >= LevelFull {
		d.writeFull(&b)
	}
	return b.String()
}

// writeFull renders the sections only [LevelFull] has.
func (d *Doc) writeFull(b *strings.Builder) {
	if len(d.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, ex := range d.Examples {
			b.WriteString("- ")
			b.WriteString(ex.Name)
			if ex.Description != "" {
				b.WriteString(": ")
				b.WriteString(oneLine(ex.Description))
			}
			b.WriteString("\n  `")
			b.WriteString(d.ID)
			b.WriteByte('(')
			b.WriteString(compactValue(ex.Args, "{}"))
			b.WriteString(")`")
			if ex.Result != nil {
				b.WriteString(" → `")
				b.WriteString(compactValue(ex.Result, "null"))
				b.WriteByte('`')
			}
			b.WriteByte('\n')
		}
	}
	if len(d.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range d.Notes {
			line(b, "- "+n)
		}
	}
	if len(d.Refs) > 0 {
		b.WriteString("\nReferences:\n")
		for _, r := range d.Refs {
			title := r.Title
			if title == "" {
				title = r.URL
			}
			fmt.Fprintf(b, "- [%s](%s)\n", title, r.URL)
		}
	}
	var facts []string
	if d.Annotations != nil {
		facts = append(facts, "Behavior: "+d.Annotations.String())
	}
	if d.Version != "" {
		facts = append(facts, "Version: "+d.Version)
	}
	if d.Source != "" {
		facts = append(facts, "Source: "+d.Source)
	}
	if len(facts) > 0 {
		b.WriteByte('\n')
		line(b, strings.Join(facts, ". "))
	}
	if len(d.InputSchema) > 0 {
		b.WriteString("\nInput schema: `")
		b.Write(d.InputSchema)
		b.WriteString("`\n")
	}
	if len(d.OutputSchema) > 0 {
		b.WriteString("Output schema: `")
		b.Write(d.OutputSchema)
		b.WriteString("`\n")
	}
}

// String describes the hints in words, such as "read-only, closed-world".
// A nil a, a tool that declares no hints, is described by "".
func (a *Annotations) String() string {
	if a == nil {
		return ""
	}
	var words []string
	if a.ReadOnly {
		words = append(words, "read-only")
	} else {
		if a.Destructive {
			words = append(words, "destructive")
		} else {
			words = append(words, "additive")
		}
		if a.Idempotent {
			words = append(words, "idempotent")
		}
	}
	if a.OpenWorld {
		words = append(words, "open-world")
	} else {
		words = append(words, "closed-world")
	}
	return strings.Join(words, ", ")
}

// line writes s and a line break, unless s is empty.
func line(b *strings.Builder, s string) {
	if s == "" {
		return
	}
	b.WriteString(s)
	b.WriteByte('\n')
}

// oneLine collapses every run of white space in s into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// compactValue returns v as compact JSON, or fallback when v is nil or
// does not marshal.
func compactValue(v any, fallback string) string {
	if v == nil {
		return fallback
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fallback
	}
	return string(raw)
}

// writeParams writes one list item per parameter, and the properties of
// object parameters (or of the objects in array parameters) indented
// below.
func writeParams(b *strings.Builder, params []Param, indent string) {
	for i := range params {
		p := &params[i]
		b.WriteString(indent)
		b.WriteString("- `")
		b.WriteString(p.Name)
		b.WriteString("` (")
		b.WriteString(typeExpr(p, 0))
		if p.Required {
			b.WriteString(", required")
		}
		if p.Format != "" {
			b.WriteString(", format ")
			b.WriteString(p.Format)
		}
		if len(p.Default) > 0 {
			b.WriteString(", default ")
			b.Write(p.Default)
		}
		if len(p.Enum) > 0 {
			b.WriteString(", one of ")
			b.WriteString(joinValues(p.Enum, maxListedEnum, ", "))
		}
		if p.Deprecated {
			b.WriteString(", deprecated")
		}
		b.WriteByte(')')
		if p.Description != "" {
			b.WriteString(": ")
			b.WriteString(oneLine(p.Description))
		}
		b.WriteByte('\n')
		nested := p.Properties
		if nested == nil && p.Items != nil {
			nested = p.Items.Properties
		}
		writeParams(b, nested, indent+"  ")
	}
}

// joinValues joins up to limit JSON values with sep, noting how many more
// there are.
func joinValues(values []json.RawMessage, limit int, sep string) string {
	parts := make([]string, 0, min(len(values), limit)+1)
	for i, v := range values {
		if i == limit {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(values)-limit))
			break
		}
		parts = append(parts, string(v))
	}
	return strings.Join(parts, sep)
}

// Signature renders the Doc as a one-line call signature, such as
//
//	github:create_issue(owner: string, repo: string, body?: string, labels?: string[]) -> object
//
// Required parameters come first; an optional one is marked "?". A type
// is a JSON Schema type name, "T[]" for an array of T, "A | B" for
// alternatives (a nullable parameter ends in "| null"), "any" when the
// schema does not restrict it, and the literal values themselves for a
// short enumeration. The arrow gives the output schema's type and is left
// out when the tool has no output schema. A summary-level Doc, which has
// no schemas, renders its parameters as "…".
func (d *Doc) Signature() string {
	var b strings.Builder
	b.WriteString(d.ID)
	b.WriteByte('(')
	if d.Input == nil {
		b.WriteString("…")
	}
	if d.Input != nil {
		for i := range d.Input.Params {
			p := &d.Input.Params[i]
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.Name)
			if !p.Required {
				b.WriteByte('?')
			}
			b.WriteString(": ")
			b.WriteString(typeExpr(p, maxSignatureEnum))
		}
	}
	b.WriteByte(')')
	if d.Output != nil {
		b.WriteString(" -> ")
		b.WriteString(typesExpr(d.Output.Types))
	}
	return b.String()
}

// typeExpr renders a parameter's type. A non-empty enumeration of at most
// enumLimit values is rendered as its values.
func typeExpr(p *Param, enumLimit int) string {
	if n := len(p.Enum); n > 0 && n <= enumLimit {
		return joinValues(p.Enum, enumLimit, " | ")
	}
	if len(p.Types) == 0 {
		return "any"
	}
	parts := make([]string, len(p.Types))
	for i, t := range p.Types {
		if t != "array" {
			parts[i] = t
			continue
		}
		item := "any"
		if p.Items != nil {
			item = typeExpr(p.Items, enumLimit)
		}
		if strings.Contains(item, " | ") {
			item = "(" + item + ")"
		}
		parts[i] = item + "[]"
	}
	return strings.Join(parts, " | ")
}

// typesExpr renders a list of JSON types, or "any" for none.
func typesExpr(types []string) string {
	if len(types) == 0 {
		return "any"
	}
	return strings.Join(types, " | ")
}

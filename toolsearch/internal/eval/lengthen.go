package eval

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/metatools-go/metatools/toolmodel"
)

// paramDoc is a documented parameter of a donor tool: its name and its
// property schema, which has a description.
type paramDoc struct {
	name   string
	schema map[string]any
}

// Lengthen returns a copy of ds whose tools are long and parameter-heavy,
// as the tools of API marketplaces are: each tool's input schema gains
// extra documented properties taken from the donor tools' schemas, and
// its description gains a list of extra return fields, each a name, a type
// and a description taken from the same pool. The queries are those of ds,
// unchanged, so that the figures of a searcher on ds and on its lengthened
// copy tell how much the added text distracts it.
//
// Donor parameters are those of the donors' properties that have a
// description written in English (mostly ASCII letters), so that they
// share vocabulary with the queries. The choice is a fixed pseudo-random
// sequence started from seed: the result depends on ds, donors, extra and
// seed only. extra = 0 returns ds's tools unchanged. An error says that
// the donors document no usable parameter.
func Lengthen(ds *Dataset, donors []toolmodel.Tool, extra int, seed uint64) (*Dataset, error) {
	if extra < 0 {
		return nil, fmt.Errorf("extra parameters %d: need >= 0", extra)
	}
	out := &Dataset{Tools: make([]toolmodel.Tool, len(ds.Tools)), Skipped: ds.Skipped, Queries: ds.Queries}
	if extra == 0 {
		copy(out.Tools, ds.Tools)
		return out, nil
	}
	pool := donorParams(donors)
	if len(pool) == 0 {
		return nil, fmt.Errorf("the %d donor tools document no parameter in English", len(donors))
	}
	state := seed
	next := func(bound int) int { // a fixed linear congruential sequence
		state = state*6364136223846793005 + 1442695040888963407
		return int((state >> 33) % uint64(bound))
	}
	for i := range ds.Tools {
		t := ds.Tools[i].Clone()
		props, schema := schemaProperties(t.InputSchema)
		for range extra {
			p := pool[next(len(pool))]
			if _, taken := props[p.name]; !taken {
				props[p.name] = p.schema
			}
		}
		schema["properties"] = props
		t.InputSchema = schema

		var b strings.Builder
		b.WriteString(t.Description)
		b.WriteString("\n\nResponse fields:")
		for range extra {
			p := pool[next(len(pool))]
			typ, _ := p.schema["type"].(string)
			if typ == "" {
				typ = "string"
			}
			fmt.Fprintf(&b, "\n- %s (%s): %s", p.name, typ, p.schema["description"])
		}
		t.Description = b.String()
		out.Tools[i] = t
	}
	return out, nil
}

// schemaProperties returns a copy of a tool's input schema as a map, and
// its properties; a schema that is not an object gets an empty one.
func schemaProperties(schema any) (props, root map[string]any) {
	root = map[string]any{}
	if raw, err := toolmodel.SchemaJSON(schema); err == nil {
		_ = json.Unmarshal(raw, &root)
		if root == nil {
			root = map[string]any{}
		}
	}
	root["type"] = "object"
	props, _ = root["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	return props, root
}

// donorParams returns the top-level properties of the donors that have an
// English description, in donor then name order.
func donorParams(donors []toolmodel.Tool) []paramDoc {
	var pool []paramDoc
	for i := range donors {
		props, _ := schemaProperties(donors[i].InputSchema)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			p, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			desc, _ := p["description"].(string)
			if len(strings.Fields(desc)) >= 3 && mostlyASCIILetters(desc) {
				pool = append(pool, paramDoc{name: name, schema: p})
			}
		}
	}
	return pool
}

// mostlyASCIILetters reports whether at least 90% of the letters of s are
// ASCII.
func mostlyASCIILetters(s string) bool {
	ascii, letters := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if r < unicode.MaxASCII {
				ascii++
			}
		}
	}
	return letters > 0 && ascii*10 >= letters*9
}

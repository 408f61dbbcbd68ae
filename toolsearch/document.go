package toolsearch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/toolmodel"
)

// Fields of an indexed tool. The text fields are searched, each with its
// weight; namespaceKeyField holds the namespace verbatim for filtering,
// nameKeyField the lower-cased name for lookups by name,
// and hashField the document's content hash.
const (
	nameField             = "name"
	namespaceField        = "namespace"
	titleField            = "title"
	tagsField             = "tags"
	descriptionField      = "description"
	paramNamesField       = "param_names"
	paramDescriptionField = "param_descriptions"
	detailsField          = "details"
	namePairsField        = "name_pairs"
	leadPairsField        = "lead_pairs"
	namespaceKeyField     = "namespace_key"
	nameKeyField          = "name_key"
	hashField             = "content_hash"
)

// maxSchemaDepth bounds how deep parameters are collected in an input
// schema: top-level properties and those of the objects they hold, which
// is where the words a caller would search for live.
const maxSchemaDepth = 2

// document is a tool as it is indexed: the text of each searched field.
// Documents are compared by hash to skip upserts that change nothing.
type document struct {
	id               string
	name             string
	namespace        string
	title            string
	tags             string
	description      string
	paramNames       string
	paramDescription string
	// namePairs holds the pairs of words of the name (see pairKey),
	// which the Searcher fills in, as it needs the analyzer.
	namePairs string
	// leadPairs holds the pairs of words near each other in the lead, as
	// a pairSet, which the Searcher fills in too and keeps in memory
	// (leadPairBook): they are not indexed.
	leadPairs pairSet
	// lead and details are the description split where its first
	// paragraph ends (see splitLead), searched as two fields.
	lead    string
	details string
	hash    string
}

// newDocument extracts the searched text of a tool. Parameters are read
// from the input schema in any form; a schema that cannot be decoded
// contributes no parameters, as the tool remains findable by its other
// fields.
func newDocument(t *toolmodel.Tool) *document {
	d := &document{
		id:          t.ID(),
		name:        t.Name,
		namespace:   t.Namespace,
		title:       toolTitle(t),
		tags:        strings.Join(t.Tags, " "),
		description: t.Description,
	}
	d.lead, d.details = splitLead(t.Description)
	if t.InputSchema != nil {
		if raw, err := toolmodel.SchemaJSON(t.InputSchema); err == nil {
			var root schemaNode
			if json.Unmarshal(raw, &root) == nil {
				var names, descs []string
				root.collect(1, &names, &descs)
				d.paramNames = strings.Join(names, " ")
				d.paramDescription = strings.Join(descs, "\n")
			}
		}
	}
	d.hash = d.contentHash()
	return d
}

// toolTitle returns the tool's display titles: its own and its
// annotations', when they differ.
func toolTitle(t *toolmodel.Tool) string {
	title := t.Title
	if t.Annotations != nil && t.Annotations.Title != "" && t.Annotations.Title != title {
		if title != "" {
			title += "\n"
		}
		title += t.Annotations.Title
	}
	return title
}

// schemaNode is the part of a JSON Schema that names and documents
// parameters. Decoding only this part, rather than a whole schema, keeps
// indexing cheap; anything else in the schema is skipped unread.
type schemaNode struct {
	Description string                 `json:"description"`
	Properties  map[string]*schemaNode `json:"properties"`
	// Items is a schema, or an array of schemas in draft-07 tuple form.
	Items json.RawMessage `json:"items"`
}

// UnmarshalJSON decodes a schema, treating the boolean schemas true and
// false, which document nothing, as empty.
func (n *schemaNode) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] != '{' {
		*n = schemaNode{}
		return nil
	}
	type plain schemaNode
	return json.Unmarshal(data, (*plain)(n))
}

// collect appends the property names and descriptions of n, in name
// order, descending into object properties and array items up to
// maxSchemaDepth.
func (n *schemaNode) collect(depth int, names, descs *[]string) {
	if depth > maxSchemaDepth {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(n.Properties)) {
		*names = append(*names, name)
		prop := n.Properties[name]
		if prop == nil {
			continue
		}
		if prop.Description != "" {
			*descs = append(*descs, prop.Description)
		}
		prop.collect(depth+1, names, descs)
		var item schemaNode
		if len(prop.Items) > 0 && json.Unmarshal(prop.Items, &item) == nil {
			item.collect(depth+1, names, descs)
		}
	}
}

// contentHash identifies the indexed content; it includes formatVersion,
// so that documents indexed under another format never count as
// unchanged.
func (d *document) contentHash() string {
	h := sha256.New()
	for _, s := range []string{formatVersion, d.id, d.name, d.namespace, d.title, d.tags, d.description, d.paramNames, d.paramDescription} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// fields returns the document in the form bleve indexes, without its
// empty fields: bleve builds a dictionary for every field a segment
// holds, at a fixed cost each, which is most of the cost of indexing a
// small batch. The content hash is left out too unless withHash is set:
// only an on-disk index reads it back, an in-memory one keeps its
// documents (segments).
func (d *document) fields(withHash bool) map[string]any {
	fields := map[string]any{
		nameField:             d.name,
		namespaceField:        d.namespace,
		titleField:            d.title,
		tagsField:             d.tags,
		descriptionField:      d.lead,
		detailsField:          d.details,
		paramNamesField:       d.paramNames,
		paramDescriptionField: d.paramDescription,
		namePairsField:        d.namePairs,
		namespaceKeyField:     d.namespace,
		nameKeyField:          strings.ToLower(d.name),
		hashField:             d.hash,
	}
	if !withHash {
		delete(fields, hashField)
	}
	for name, value := range fields {
		if value == "" {
			delete(fields, name)
		}
	}
	return fields
}

// minLeadWords is the fewest words a description's lead holds when the
// description has that many: a first paragraph shorter than that (a
// heading such as "Weather API", or "Usage:") is joined to what follows.
const minLeadWords = 3

// splitLead splits a description where its first paragraph ends: at the
// first blank line, or before the first line after the first that starts
// a list item ("- ", "* ", "• ", "+ ", "1. ", "1) "), once the lead
// holds minLeadWords words. The first paragraph says what a tool does;
// what follows documents it (return fields, notes, examples) in many
// words that unrelated requests share. A description of one paragraph
// is all lead.
func splitLead(desc string) (lead, details string) {
	text := strings.TrimSpace(desc)
	for start := 0; ; {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			return text, ""
		}
		next := start + end + 1
		line, _, _ := strings.Cut(text[next:], "\n")
		line = strings.TrimSpace(line)
		if (line == "" || isListItem(line)) && len(strings.Fields(text[:next])) >= minLeadWords {
			return strings.TrimSpace(text[:next]), strings.TrimSpace(text[next:])
		}
		start = next
	}
}

// isListItem reports whether a trimmed line starts an item of a bulleted
// or numbered list.
func isListItem(line string) bool {
	for _, bullet := range []string{"- ", "* ", "• ", "+ "} {
		if strings.HasPrefix(line, bullet) {
			return true
		}
	}
	digits := 0
	for digits < len(line) && line[digits] >= '0' && line[digits] <= '9' {
		digits++
	}
	return digits > 0 && digits < 4 && digits+1 < len(line) &&
		(line[digits] == '.' || line[digits] == ')') && line[digits+1] == ' '
}

package toolindex

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/metatools-go/metatools/toolmodel"
)

// MaxSummaryDescription is the longest [Summary.Description], in runes.
const MaxSummaryDescription = 200

// Summary is what listings and searches show of a tool: enough to choose
// one, without its schemas. It is plain data.
type Summary struct {
	// ID is the tool's ID.
	ID string `json:"id"`
	// Namespace is the tool's namespace, if any.
	Namespace string `json:"namespace,omitempty"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Title is the tool's human-readable title: its Title, or else the
	// title of its annotations.
	Title string `json:"title,omitempty"`
	// Description is the first line of the tool's description, with runs
	// of spaces collapsed, cut to [MaxSummaryDescription] runes (ending
	// with "…" when cut).
	Description string `json:"description,omitempty"`
	// Tags are the tool's tags.
	Tags []string `json:"tags,omitempty"`
	// Backends are the distinct kinds of the tool's backends, in the order
	// they were first registered.
	Backends []toolmodel.BackendKind `json:"backends"`
	// Score is the search score; it is 0 in listings.
	Score float64 `json:"score,omitempty"`
}

// newSummary returns the summary of t served by backends.
func newSummary(t *toolmodel.Tool, backends []toolmodel.ToolBackend) Summary {
	return Summary{
		ID:          t.ID(),
		Namespace:   t.Namespace,
		Name:        t.Name,
		Title:       title(t),
		Description: oneLine(t.Description, MaxSummaryDescription),
		Tags:        slices.Clone(t.Tags),
		Backends:    backendKinds(backends),
	}
}

// title returns the tool's human-readable title: its Title, or else the
// title of its annotations, as MCP clients show it.
func title(t *toolmodel.Tool) string {
	if t.Title == "" && t.Annotations != nil {
		return t.Annotations.Title
	}
	return t.Title
}

// clone returns a copy of s that shares no slice with it.
func (s Summary) clone() Summary {
	s.Tags = slices.Clone(s.Tags)
	s.Backends = slices.Clone(s.Backends)
	return s
}

func backendKinds(backends []toolmodel.ToolBackend) []toolmodel.BackendKind {
	kinds := make([]toolmodel.BackendKind, 0, len(backends))
	for i := range backends {
		if !slices.Contains(kinds, backends[i].Kind) {
			kinds = append(kinds, backends[i].Kind)
		}
	}
	return kinds
}

// oneLine returns the first non-blank line of s with runs of white space
// collapsed, cut to at most limit runes.
func oneLine(s string, limit int) string {
	line := ""
	for l := range strings.Lines(s) {
		if f := strings.Fields(l); len(f) > 0 {
			line = strings.Join(f, " ")
			break
		}
	}
	if utf8.RuneCountInString(line) <= limit {
		return line
	}
	kept := 0
	for i := range line { // i steps through the starts of runes
		if kept == limit-1 {
			line = line[:i]
			break
		}
		kept++
	}
	return strings.TrimRight(line, " ") + "…"
}

package tooldocs

import (
	"fmt"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// DetailLevel says how much of a tool's documentation to disclose. Levels
// are ordered: each one contains everything the previous one does, so a
// caller can start cheap and ask for more when it needs it.
//
// The zero value is [LevelSummary], the cheapest level.
type DetailLevel int

// The detail levels, from the cheapest to the richest.
const (
	// LevelSummary is what an agent needs to decide whether a tool is worth
	// a closer look: ID, namespace, name, title, a one-line description
	// and tags.
	LevelSummary DetailLevel = iota
	// LevelSchema adds what an agent needs to call the tool: the input and
	// output schemas and their derived [SchemaInfo].
	LevelSchema
	// LevelFull adds everything known about the tool: the full
	// description, examples, notes, external references, behaviour
	// annotations, version and the source of the documentation.
	LevelFull
)

// Levels returns every detail level, from the cheapest to the richest.
func Levels() []DetailLevel { return []DetailLevel{LevelSummary, LevelSchema, LevelFull} }

var levelNames = [...]string{LevelSummary: "summary", LevelSchema: "schema", LevelFull: "full"}

// Valid reports whether l is one of the defined levels.
func (l DetailLevel) Valid() bool { return l >= LevelSummary && l <= LevelFull }

// String returns the level's name: "summary", "schema" or "full", or
// "DetailLevel(n)" for an undefined level.
func (l DetailLevel) String() string {
	if !l.Valid() {
		return fmt.Sprintf("DetailLevel(%d)", int(l))
	}
	return levelNames[l]
}

// ParseDetailLevel returns the level named s: "summary", "schema" or
// "full", ignoring case and surrounding spaces. Any other input yields an
// error of code [errors.InvalidArgument] that lists the valid names.
func ParseDetailLevel(s string) (DetailLevel, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, l := range Levels() {
		if levelNames[l] == name {
			return l, nil
		}
	}
	e := errors.Errorf(errors.InvalidArgument, "unknown detail level %q: want summary, schema or full", s)
	e.Op = "tooldocs.ParseDetailLevel"
	return 0, e
}

// MarshalText encodes the level as its name, so that levels read well in
// JSON and YAML. An undefined level is an error.
func (l DetailLevel) MarshalText() ([]byte, error) {
	if !l.Valid() {
		e := errors.Errorf(errors.InvalidArgument, "undefined detail level %d", int(l))
		e.Op = "tooldocs.DetailLevel.MarshalText"
		return nil, e
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText decodes a level name as [ParseDetailLevel] does.
func (l *DetailLevel) UnmarshalText(text []byte) error {
	parsed, err := ParseDetailLevel(string(text))
	if err != nil {
		return err
	}
	*l = parsed
	return nil
}

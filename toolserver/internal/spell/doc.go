// Package spell finds the known word a mistyped one was meant to be, for
// the "did you mean" hints of the configuration's checks and of the
// metatools command: unknown keys, commands, flags, tool IDs and
// namespaces.
//
// A word is near another when few edits (insertions, deletions,
// substitutions, transpositions of two neighbours) turn one into the
// other: at most one for short words, up to three for long ones, so that
// a hint is offered only when a misspelling is likely.
//
//	if s, ok := spell.Suggest("serach", []string{"search", "serve"}); ok {
//		fmt.Printf("did you mean %q?\n", s) // did you mean "search"?
//	}
package spell

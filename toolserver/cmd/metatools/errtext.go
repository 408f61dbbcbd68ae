package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// The library's error values name the operation that failed ("resolve",
// "toolcode.Execute", "describe") for programs and logs. A person at
// a terminal needs the sentence inside, so the command words its errors
// itself: errorText drops the operations, words the runner's stages that
// say something ("invalid arguments"), and names the tool once. Only what
// is printed changes: the values stay as they are, and `--json` output
// keeps their text.

// stageWords words the runner's stages whose name tells the person what
// went wrong; the other stages' causes say it on their own.
var stageWords = map[string]string{
	toolrun.OpValidateInput:  "invalid arguments",
	toolrun.OpValidateOutput: "invalid result",
}

// silentOps are operations whose name says nothing to a person at a
// terminal: the runner's stages and the meta-tools, whose terminal
// counterparts are the commands themselves.
var silentOps = map[string]bool{
	toolrun.OpResolve: true, toolrun.OpSelectBackend: true, toolrun.OpAuthorize: true,
	toolrun.OpBeforeExec: true, toolrun.OpPreCall: true, toolrun.OpExecute: true,
	toolrun.OpPostCall: true, toolrun.OpAfterExec: true,
	toolserver.ToolSearch: true, toolserver.ToolNamespaces: true, toolserver.ToolDescribe: true,
	toolserver.ToolExamples: true, toolserver.ToolRun: true, toolserver.ToolRunChain: true,
	toolserver.ToolExecuteCode: true,
	toolops.OpSearch:           true, toolops.OpNamespaces: true, toolops.OpDescribe: true, toolops.OpExamples: true,
	toolops.OpDeclare: true, toolops.OpRun: true, toolops.OpChain: true,
}

// libraryPhrases word what the standard library and the MCP SDK say in
// their own terms, for the failures a person meets first: a command that
// cannot start, a server that exits before it answers.
var libraryPhrases = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`fork/exec (\S+): `), "cannot start $1: "},
	{regexp.MustCompile(`connection closed: calling "([^"]+)": client is closing: EOF`), `it closed the connection before answering "$1"`},
}

// plainText returns err as a sentence for a person, without its code:
// see above.
func plainText(err error) string {
	return plainWords(causeText(err, ""))
}

// plainWords words in text what the libraries say in their own terms
// (libraryPhrases).
func plainWords(text string) string {
	for _, p := range libraryPhrases {
		text = p.re.ReplaceAllString(text, p.with)
	}
	return text
}

// errorText returns err as a sentence for a person: see above. An error
// of the errors module ends with its code in brackets ("[not_found]"),
// which scripts and bug reports rely on.
func errorText(err error) string {
	text := plainText(err)
	var e *errors.Error
	if errors.As(err, &e) {
		text += " [" + string(e.Code) + "]"
	}
	return text
}

// causeText words err, within the words of an error about tool (none
// when tool is empty), so that a nested error does not name it again.
func causeText(err error, tool string) string {
	if e, ok := err.(*errors.Error); ok { //nolint:errorlint // each link of the chain is worded on its own
		return taxonomyText(e, tool)
	}
	text := err.Error()
	// A wrapper's text holds its causes' texts: word those in place.
	var causes []error
	switch w := err.(type) { //nolint:errorlint // the wrapper itself, not its chain
	case interface{ Unwrap() error }:
		if c := w.Unwrap(); c != nil {
			causes = []error{c}
		}
	case interface{ Unwrap() []error }:
		causes = w.Unwrap()
	}
	for _, c := range causes {
		if c == nil {
			continue
		}
		if inner := c.Error(); inner != "" {
			text = strings.Replace(text, inner, causeText(c, tool), 1)
		}
	}
	return text
}

// taxonomyText words an error of the errors module.
func taxonomyText(e *errors.Error, tool string) string {
	subject := ""
	if e.ToolID != "" && e.ToolID != tool {
		tool = e.ToolID
		subject = e.ToolID
	}
	cause := string(e.Code)
	if e.Err != nil {
		cause = causeText(e.Err, tool)
	}
	if subject != "" && strings.Contains(cause, subject) {
		// The cause names the tool already: no tool "x", tool "x" is denied.
		subject = ""
	}
	var b strings.Builder
	switch {
	case stageWords[e.Op] != "":
		b.WriteString(stageWords[e.Op])
	case e.Op == toolrun.OpExecute && subject != "":
		subject += " failed"
	case e.Op != "" && !silentOps[e.Op] && !strings.Contains(e.Op, "."):
		// An operation of its own words, such as "compile".
		b.WriteString(e.Op)
	}
	prefix := b.String()
	switch {
	case subject != "" && prefix != "":
		return fmt.Sprintf("%s: %s: %s", subject, prefix, cause)
	case subject != "":
		return subject + ": " + cause
	case prefix != "":
		return prefix + ": " + cause
	}
	return cause
}

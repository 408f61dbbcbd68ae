package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver/builtin"
	"github.com/metatools-go/metatools/toolserver/internal/spell"
)

// Hints for a mistyped tool ID, namespace or backend. They name only what
// the server offers, as an agent would see it: a tool the policy refuses
// is never suggested, and its namespace and backends are never listed.

// maxSuggestions is how many near tool IDs a hint names at most.
const maxSuggestions = 3

// hintError is an error followed, on the terminal, by a line that says
// what was likely meant or what to do.
type hintError struct {
	err  error
	hint string
}

func (h hintError) Error() string { return h.err.Error() + "; " + h.hint }
func (h hintError) Unwrap() error { return h.err }

// worded is an error with the words the command prints for it, its code
// and chain kept for [errorText] and callers.
type worded struct {
	err  error
	text string
}

func (w worded) Error() string { return w.text }
func (w worded) Unwrap() error { return w.err }

// offeredIDs returns the IDs of every tool the server offers, in the
// order of the index.
func offeredIDs(ctx context.Context, ops *toolops.Service) ([]string, error) {
	var ids []string
	req := toolops.SearchRequest{Limit: toolops.MaxSearchResults}
	for {
		page, err := ops.Search(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, t := range page.Tools {
			ids = append(ids, t.ID)
		}
		if page.NextCursor == "" {
			return ids, nil
		}
		req.Cursor = page.NextCursor
	}
}

// isUnknownTool reports whether err says that the tool id is not in the
// catalogue (or not offered, which reads the same): the operations'
// answer for it. A tool's own not-found failure, such as a 404 of the
// web API it calls, is not one.
func isUnknownTool(err error, id string) bool {
	var e *errors.Error
	if errors.CodeOf(err) != errors.NotFound || !errors.As(err, &e) {
		return false
	}
	return e.ToolID == id && (e.Op == toolops.OpRun || e.Op == toolops.OpDescribe)
}

// unknownTool returns err, when it says that id is not a tool, with a
// hint: the offered IDs nearest to id, or an upstream of the tool's
// namespace that failed to connect, or else how to find tools.
func (s *session) unknownTool(ctx context.Context, id string, err error) error {
	if !isUnknownTool(err, id) {
		return err
	}
	// describe's own words point an agent to search_tools.
	err = worded{err, fmt.Sprintf("no tool %q", id)}
	if id == builtin.FetchID && !s.cfg.Builtin.Disabled && len(s.cfg.Builtin.HTTPAllow) == 0 {
		return hintError{err, "it is served once builtin.httpAllow in the configuration names the hosts it may reach"}
	}
	if up, ok := s.failedUpstream(ctx, namespaceOf(id)); ok {
		// The progress lines above gave the reason, once.
		return hintError{err, fmt.Sprintf("upstream %q, whose namespace it names, failed to connect (see above)", up.Name)}
	}
	ids, lerr := offeredIDs(ctx, s.cat.Ops)
	if lerr != nil {
		return err
	}
	if near := nearIDs(id, ids); len(near) > 0 {
		return hintError{err, "did you mean " + orList(near) + "?"}
	}
	return hintError{err, `"metatools search WORDS" finds tools by what they do`}
}

// nearIDs returns the offered IDs nearest to id: by the whole ID, or,
// for an ID without its namespace ("eval"), by name.
func nearIDs(id string, ids []string) []string {
	near := spell.Nearest(id, ids, maxSuggestions)
	if len(near) > 0 || strings.Contains(id, ":") {
		return near
	}
	var names []string
	byName := map[string][]string{}
	for _, full := range ids {
		_, name, _ := strings.Cut(full, ":")
		if _, seen := byName[name]; !seen {
			names = append(names, name)
		}
		byName[name] = append(byName[name], full)
	}
	if exact, ok := byName[id]; ok {
		return exact[:min(len(exact), maxSuggestions)]
	}
	for _, name := range spell.Nearest(id, names, maxSuggestions) {
		near = append(near, byName[name]...)
	}
	return near[:min(len(near), maxSuggestions)]
}

// namespaceOf returns the namespace part of a tool ID ("" when it has
// none).
func namespaceOf(id string) string {
	ns, _, found := strings.Cut(id, ":")
	if !found {
		return ""
	}
	return ns
}

// failedUpstream returns the upstream of namespace ns when its last
// connection attempt failed: its tools are missing for that reason. An
// upstream the caller is not offered is none (see toolops'
// Service.Upstreams): its failure is not told.
func (s *session) failedUpstream(ctx context.Context, ns string) (toolops.Upstream, bool) {
	if ns == "" {
		return toolops.Upstream{}, false
	}
	for _, u := range s.cat.Ops.Upstreams(ctx) {
		if u.State == toolops.UpstreamFailed && slices.Contains(u.Namespaces, ns) {
			return u, true
		}
	}
	return toolops.Upstream{}, false
}

// orList writes words as `a`, `a or b`, `a, b or c`.
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// namespaceHint returns err, the operations' answer to a search of the
// namespace ns, with a hint when it says there is no such namespace: the
// namespace likely meant and those offered, or the upstream of ns that
// failed to connect.
func (s *session) namespaceHint(ctx context.Context, ns string, err error) error {
	var e *errors.Error
	if ns == "" || errors.CodeOf(err) != errors.NotFound || !errors.As(err, &e) || e.Op != toolops.OpSearch {
		return err
	}
	if up, ok := s.failedUpstream(ctx, ns); ok {
		return hintError{err, fmt.Sprintf("its upstream %q failed to connect (see above)", up.Name)}
	}
	known, lerr := s.cat.Ops.Namespaces(ctx)
	if lerr != nil {
		return err
	}
	if len(known) == 0 {
		return hintError{err, "the catalogue offers none"}
	}
	hint := ""
	if s, ok := spell.Suggest(ns, known); ok {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	return hintError{err, hint + "the namespaces are " + strings.Join(known, ", ")}
}

// checkBackend returns a usage error when backend is not the identity of
// one of the backends of tool id, naming them. A tool that is unknown or
// not offered is left for the run to report, as it would be without
// --backend: its backends are not named.
func (s *session) checkBackend(ctx context.Context, id, backend string) error {
	if backend == "" {
		return nil
	}
	if _, err := s.cat.Ops.Definition(ctx, id); err != nil {
		return nil //nolint:nilerr // the run reports it, with its hint
	}
	_, backends, err := s.cat.Index.GetAll(ctx, id)
	if err != nil {
		return nil //nolint:nilerr // the run reports it
	}
	identities := make([]string, len(backends))
	for i := range backends {
		identities[i] = backends[i].Identity()
	}
	if slices.Contains(identities, backend) {
		return nil
	}
	hint := ""
	if s, ok := spell.Suggest(backend, identities); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return usagef("--backend %q is not a backend of %s%s; its backends are %s", backend, id, hint, strings.Join(identities, ", "))
}

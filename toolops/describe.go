package toolops

import (
	"context"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolmodel"
)

// DefaultLevel is the detail level of a description whose request names
// none: the tool's parameters, what a caller needs to call it.
const DefaultLevel = tooldocs.LevelSchema

// DescribeRequest asks for a tool's documentation.
type DescribeRequest struct {
	// ID is the tool's ID.
	ID string `json:"id"`
	// Level is "summary", "schema" or "full", in any case; empty means
	// [DefaultLevel].
	Level string `json:"level,omitempty"`
}

// Describe returns the documentation of a tool offered to the caller at
// the level asked. A tool the caller is not offered is not found, as an
// unknown one is ([errors.NotFound]); an unknown level is an error of
// code [errors.InvalidArgument].
func (s *Service) Describe(ctx context.Context, req DescribeRequest) (tooldocs.Doc, error) {
	level, err := ParseLevel(req.Level)
	if err != nil {
		return tooldocs.Doc{}, errors.WithOp(OpDescribe, err)
	}
	if err := s.lookup(ctx, OpDescribe, req.ID); err != nil {
		return tooldocs.Doc{}, err
	}
	doc, err := s.docs.Describe(ctx, req.ID, level)
	if err != nil {
		return tooldocs.Doc{}, s.documentError(ctx, OpDescribe, req.ID, err)
	}
	return doc, nil
}

// ParseLevel returns the detail level a request names: "summary",
// "schema" or "full" in any case, or [DefaultLevel] for "". Any other
// name is an error of code [errors.InvalidArgument] that lists them.
func ParseLevel(name string) (tooldocs.DetailLevel, error) {
	if name == "" {
		return DefaultLevel, nil
	}
	level, err := tooldocs.ParseDetailLevel(name)
	if err != nil {
		return 0, errors.Errorf(errors.InvalidArgument, "unknown detail level %q: want summary, schema or full", name)
	}
	return level, nil
}

// ExamplesRequest asks for a tool's example calls.
type ExamplesRequest struct {
	// ID is the tool's ID.
	ID string `json:"id"`
	// Limit is the most examples to return; 0 returns them all.
	Limit int `json:"limit,omitempty"`
}

// Examples returns example calls of a tool offered to the caller, in the
// order they were registered, up to the request's limit; a tool without
// examples has none, and the list is then empty, not nil. Errors are
// those of [Service.Describe]; a negative limit is an error of code
// [errors.InvalidArgument].
func (s *Service) Examples(ctx context.Context, req ExamplesRequest) ([]tooldocs.Example, error) {
	if req.Limit < 0 {
		return nil, errors.Opf(OpExamples, errors.InvalidArgument, "limit %d is negative: ask for 1 or more examples, or 0 for all", req.Limit)
	}
	if err := s.lookup(ctx, OpExamples, req.ID); err != nil {
		return nil, err
	}
	examples, err := s.docs.Examples(ctx, req.ID, req.Limit)
	if err != nil {
		return nil, s.documentError(ctx, OpExamples, req.ID, err)
	}
	if examples == nil {
		examples = []tooldocs.Example{}
	}
	return examples, nil
}

// DeclareRequest asks for the TypeScript declarations of tools, which a
// program of code mode calls as declared.
type DeclareRequest struct {
	// IDs are the tools to declare, each once.
	IDs []string `json:"ids"`
	// Options say how much to render.
	Options tooldocs.TypeScriptOptions `json:"options,omitzero"`
}

// Declare returns the TypeScript declarations of tools offered to the
// caller, from the documentation store when it renders them
// ([tooldocs.Declarer]), else from the tools' definitions. A tool not
// offered fails the whole request, as for [Service.Describe].
func (s *Service) Declare(ctx context.Context, req DeclareRequest) (string, error) {
	for _, id := range req.IDs {
		if err := s.lookup(ctx, OpDeclare, id); err != nil {
			return "", err
		}
	}
	if d, ok := s.docs.(tooldocs.Declarer); ok {
		decl, err := d.TypeScript(ctx, req.IDs, req.Options)
		if err != nil {
			return "", errors.WithOp(OpDeclare, err)
		}
		return decl, nil
	}
	tools := make([]toolmodel.Tool, 0, len(req.IDs))
	for _, id := range req.IDs {
		tool, _, err := s.index.GetAll(ctx, id)
		if err != nil {
			return "", s.documentError(ctx, OpDeclare, id, err)
		}
		tools = append(tools, tool)
	}
	decl, err := tooldocs.TypeScript(tools, req.Options)
	if err != nil {
		return "", errors.WithOp(OpDeclare, err)
	}
	return decl, nil
}

// documentError is the error of operation op when the documentation of
// an offered tool could not be read: a tool gone meanwhile is answered
// as unknown.
func (s *Service) documentError(ctx context.Context, op, id string, err error) error {
	if errors.CodeOf(err) == errors.NotFound {
		return s.unknownTool(ctx, op, id)
	}
	return errors.WithOp(op, err)
}

// Definition returns the definition of a tool offered to the caller, as
// the catalogue holds it: for a face that exposes tools under their own
// names. Errors are those of [Service.Describe].
func (s *Service) Definition(ctx context.Context, id string) (toolmodel.Tool, error) {
	if err := s.lookup(ctx, OpDescribe, id); err != nil {
		return toolmodel.Tool{}, err
	}
	tool, _, err := s.index.GetAll(ctx, id)
	if err != nil {
		return toolmodel.Tool{}, s.documentError(ctx, OpDescribe, id, err)
	}
	return tool, nil
}

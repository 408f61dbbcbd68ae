// Command toolmodel-demo shows what the bottom layers of metatools do: it
// decodes a tool definition and its backend from JSON, validates them, and
// checks a few calls' arguments against the tool's input schema, printing
// what an agent would be told.
//
//	go run ./toolmodel/cmd/toolmodel-demo
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

const toolJSON = `{
  "name": "create_issue",
  "namespace": "github",
  "title": "Create an issue",
  "description": "Open a new issue in a GitHub repository.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "owner": {"type": "string", "pattern": "^[A-Za-z0-9-]+$"},
      "repo": {"type": "string"},
      "title": {"type": "string", "minLength": 1},
      "labels": {"type": "array", "items": {"type": "string"}},
      "priority": {"enum": ["low", "medium", "high"]}
    },
    "required": ["owner", "repo", "title"],
    "additionalProperties": false
  },
  "tags": ["issues", "write"]
}`

const backendJSON = `{"kind": "http", "http": {"baseUrl": "https://api.github.com", "method": "POST",
  "path": "/repos/{owner}/{repo}/issues", "auth": {"type": "bearer", "secret": "GITHUB_TOKEN"}, "timeout": "10s"}}`

var calls = []string{
	`{"owner": "metatools-go", "repo": "metatools", "title": "Crash on start", "labels": ["bug"]}`,
	`{"owner": "not an owner!", "title": "", "priority": "urgent"}`,
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "toolmodel-demo:", err)
		os.Exit(1)
	}
}

func run() error {
	tool, err := toolmodel.DecodeTool([]byte(toolJSON))
	if err != nil {
		return err
	}
	var backend toolmodel.ToolBackend
	if err := json.Unmarshal([]byte(backendJSON), &backend); err != nil {
		return fmt.Errorf("decode backend: %w", err)
	}
	if err := backend.Validate(); err != nil {
		return err
	}
	fmt.Printf("tool %s (%s), served by %s\n\n", tool.ID(), tool.Title, backend.Identity())

	validator := toolmodel.NewValidator()
	for _, call := range calls {
		fmt.Printf("call %s\n", call)
		err := validator.ValidateInput(&tool, json.RawMessage(call))
		switch {
		case err == nil:
			fmt.Println("  valid: ready to run")
		case errors.Is(err, errors.ErrValidation):
			fmt.Printf("  rejected (%s): %v\n", errors.CodeOf(err), err)
		default:
			return err
		}
	}
	fmt.Printf("\n%d compiled schema(s) cached\n", validator.Len())
	return nil
}

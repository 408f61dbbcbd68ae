package toolmodel_test

import (
	"encoding/json"
	"fmt"

	"github.com/metatools-go/metatools/toolmodel"
)

func ExampleParseToolID() {
	ns, name, err := toolmodel.ParseToolID("github:create_issue")
	fmt.Printf("%q %q %v\n", ns, name, err)

	ns, name, err = toolmodel.ParseToolID("now")
	fmt.Printf("%q %q %v\n", ns, name, err)

	_, _, err = toolmodel.ParseToolID("github:create issue")
	fmt.Println(err)
	// Output:
	// "github" "create_issue" <nil>
	// "" "now" <nil>
	// toolmodel.ParseToolID: tool ID "github:create issue": name: byte ' ' at offset 6: only ASCII letters, digits, '_', '.' and '-' are allowed
}

// A tool is plain data: MCP's tool JSON plus a namespace, version, tags and
// metadata, and it survives a round trip unchanged.
func ExampleTool() {
	tool, err := toolmodel.DecodeTool([]byte(`{
		"name": "create_issue",
		"namespace": "github",
		"description": "Create an issue.",
		"inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
		"tags": ["issues"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tool.ID(), tool.Tags)

	encoded, _ := json.Marshal(tool)
	fmt.Println(string(encoded))

	plain, _ := json.Marshal(tool.MCP()) // what a classic MCP client sees
	fmt.Println(string(plain))
	// Output:
	// github:create_issue [issues]
	// {"description":"Create an issue.","inputSchema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]},"name":"create_issue","namespace":"github","tags":["issues"]}
	// {"description":"Create an issue.","inputSchema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]},"name":"create_issue"}
}

func ExampleValidator_ValidateInput() {
	tool, _ := toolmodel.DecodeTool([]byte(`{
		"name": "create_issue",
		"inputSchema": {
			"type": "object",
			"properties": {
				"title": {"type": "string", "minLength": 1},
				"priority": {"enum": ["low", "high"]}
			},
			"required": ["title"],
			"additionalProperties": false
		}
	}`))
	v := toolmodel.NewValidator() // keep one: it compiles each schema once

	fmt.Println(v.ValidateInput(&tool, map[string]any{"title": "Crash on start", "priority": "high"}))
	fmt.Println(v.ValidateInput(&tool, map[string]any{"priority": "someday", "color": "red"}))
	// Output:
	// <nil>
	// validate_input: tool "create_issue": /title: required property is missing; /color: property is not allowed (allowed: priority, title); /priority: enum: someday does not equal any of: [low high]
}

package tooldocs_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// weatherTool is the tool the examples document.
const weatherTool = `{
	"namespace": "weather",
	"name": "forecast",
	"title": "Weather forecast",
	"description": "Get the forecast for a city. Data is refreshed every hour.",
	"tags": ["weather"],
	"inputSchema": {
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name."},
			"days": {"type": "integer", "default": 3},
			"units": {"enum": ["metric", "imperial"]}
		},
		"required": ["city"]
	}
}`

// Describe a tool at each detail level: the summary to choose a tool, the
// schema to call it, everything else at the full level.
func Example() {
	ctx := context.Background()
	tool, err := toolmodel.DecodeTool([]byte(weatherTool))
	if err != nil {
		panic(err)
	}

	store := tooldocs.NewStore()
	err = store.Register(ctx, tooldocs.Entry{
		Tool: &tool,
		Examples: []tooldocs.Example{
			{Name: "paris", Description: "Three days in Paris.", Args: map[string]any{"city": "Paris"}},
		},
		Notes:  []string{"Forecasts beyond 7 days are unreliable."},
		Source: tooldocs.SourceManual,
	})
	if err != nil {
		panic(err)
	}

	for _, level := range tooldocs.Levels() {
		doc, err := store.Describe(ctx, "weather:forecast", level)
		if err != nil {
			panic(err)
		}
		fmt.Printf("--- %s\n%s", level, doc.Markdown())
	}
	// Output:
	// --- summary
	// ## weather:forecast — Weather forecast
	// Get the forecast for a city.
	// Tags: weather
	// --- schema
	// ## weather:forecast — Weather forecast
	// Get the forecast for a city.
	// Tags: weather
	//
	// `weather:forecast(city: string, days?: integer, units?: "metric" | "imperial")`
	//
	// Parameters:
	// - `city` (string, required): City name.
	// - `days` (integer, default 3)
	// - `units` (string, one of "metric", "imperial")
	// --- full
	// ## weather:forecast — Weather forecast
	// Get the forecast for a city. Data is refreshed every hour.
	// Tags: weather
	//
	// `weather:forecast(city: string, days?: integer, units?: "metric" | "imperial")`
	//
	// Parameters:
	// - `city` (string, required): City name.
	// - `days` (integer, default 3)
	// - `units` (string, one of "metric", "imperial")
	//
	// Examples:
	// - paris: Three days in Paris.
	//   `weather:forecast({"city":"Paris"})`
	//
	// Notes:
	// - Forecasts beyond 7 days are unreliable.
	//
	// Source: manual
	//
	// Input schema: `{"type":"object","properties":{"city":{"type":"string","description":"City name."},"days":{"type":"integer","default":3},"units":{"enum":["metric","imperial"]}},"required":["city"]}`
}

// Examples are validated against the tool's input schema when they are
// registered; an invalid one is rejected by name.
func ExampleStore_Register() {
	tool, err := toolmodel.DecodeTool([]byte(weatherTool))
	if err != nil {
		panic(err)
	}
	store := tooldocs.NewStore()
	err = store.Register(context.Background(), tooldocs.Entry{
		Tool: &tool,
		Examples: []tooldocs.Example{
			{Name: "paris", Args: map[string]any{"city": "Paris"}},
			{Name: "no city", Args: map[string]any{"days": 2}},
		},
	})
	fmt.Println(errors.CodeOf(err))
	fmt.Println(err)
	// Output:
	// validation
	// tooldocs.Register: tool "weather:forecast": example "no city": args: /city: required property is missing
}

// A signature shows how to call a tool in one line.
func ExampleDoc_Signature() {
	tool, err := toolmodel.DecodeTool([]byte(`{
		"namespace": "github", "name": "create_issue",
		"inputSchema": {"type": "object", "required": ["owner", "repo", "title"], "properties": {
			"owner": {"type": "string"}, "repo": {"type": "string"}, "title": {"type": "string"},
			"body": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}}},
		"outputSchema": {"type": "object"}
	}`))
	if err != nil {
		panic(err)
	}
	store := tooldocs.NewStore()
	if err := store.Register(context.Background(), tooldocs.Entry{Tool: &tool}); err != nil {
		panic(err)
	}
	doc, err := store.Describe(context.Background(), "github:create_issue", tooldocs.LevelSchema)
	if err != nil {
		panic(err)
	}
	fmt.Println(doc.Signature())
	// Output:
	// github:create_issue(owner: string, repo: string, title: string, body?: string, labels?: string[]) -> object
}

// DescribeWithin picks the richest level that fits a token budget.
func ExampleStore_DescribeWithin() {
	ctx := context.Background()
	tool, err := toolmodel.DecodeTool([]byte(weatherTool))
	if err != nil {
		panic(err)
	}
	store := tooldocs.NewStore()
	if err := store.Register(ctx, tooldocs.Entry{Tool: &tool}); err != nil {
		panic(err)
	}
	costs, err := store.Costs(ctx, "weather:forecast")
	if err != nil {
		panic(err)
	}
	fmt.Printf("summary %d, schema %d, full %d tokens\n", costs.Summary, costs.Schema, costs.Full)
	for _, budget := range []int{50, 100, 1000} {
		doc, err := store.DescribeWithin(ctx, "weather:forecast", budget)
		if err != nil {
			panic(err)
		}
		fmt.Printf("budget %d: %s\n", budget, doc.Level)
	}
	_, err = store.DescribeWithin(ctx, "weather:forecast", 5)
	fmt.Println(errors.CodeOf(err))
	// Output:
	// summary 20, schema 87, full 149 tokens
	// budget 50: summary
	// budget 100: schema
	// budget 1000: full
	// resource_exhausted
}

// DeriveSchemaInfo digests any JSON Schema, following local references.
func ExampleDeriveSchemaInfo() {
	info, err := tooldocs.DeriveSchemaInfo(json.RawMessage(`{
		"type": "object",
		"properties": {
			"owner": {"$ref": "#/$defs/login", "description": "Repository owner."},
			"state": {"type": ["string", "null"], "enum": ["open", "closed", null]}
		},
		"required": ["owner"],
		"$defs": {"login": {"type": "string", "pattern": "^[a-z]+$"}}
	}`))
	if err != nil {
		panic(err)
	}
	for _, p := range info.Params {
		fmt.Printf("%s %v required=%t %q\n", p.Name, p.Types, p.Required, p.Description)
	}
	// Output:
	// owner [string] required=true "Repository owner."
	// state [string null] required=false ""
}

// A Store with a resolver documents every tool of an index, and adds the
// examples and notes registered for some of them.
func ExampleIndexResolver() {
	ctx := context.Background()
	tool, err := toolmodel.DecodeTool([]byte(weatherTool))
	if err != nil {
		panic(err)
	}
	idx := toolindex.New()
	err = idx.Register(ctx, toolindex.Registration{
		Tool:    tool,
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "forecast"}},
	})
	if err != nil {
		panic(err)
	}

	store := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	err = store.Register(ctx, tooldocs.Entry{
		ToolID:   "weather:forecast",
		Examples: []tooldocs.Example{{Name: "oslo", Args: map[string]any{"city": "Oslo", "units": "metric"}}},
	})
	if err != nil {
		panic(err)
	}
	examples, err := store.Examples(ctx, "weather:forecast", 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(examples[0].Name, examples[0].Args["city"])
	// Output:
	// oslo Oslo
}

// Render TypeScript declarations of tools, for a model that writes a
// program calling them (code mode).
func ExampleTypeScript() {
	tool, err := toolmodel.DecodeTool([]byte(weatherTool))
	if err != nil {
		panic(err)
	}
	decls, err := tooldocs.TypeScript([]toolmodel.Tool{tool}, tooldocs.TypeScriptOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Print(decls)
	// Output:
	// /** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
	// interface Tools {
	//   weather: {
	//     /** Get the forecast for a city. Data is refreshed every hour. */
	//     forecast(args: WeatherForecastArgs): Promise<unknown>;
	//   };
	// }
	// declare const tools: Tools;
	//
	// interface WeatherForecastArgs {
	//   /** City name. */
	//   city: string;
	//   /**
	//    * @default 3
	//    * @integer
	//    */
	//   days?: number;
	//   units?: "metric" | "imperial";
	// }
}

// A server's describe_tool returns one tool's declaration: a Store (or any
// Describer that is also a Declarer) renders the tools it documents by ID.
func ExampleStore_TypeScript() {
	ctx := context.Background()
	tool, err := toolmodel.DecodeTool([]byte(`{"namespace":"12306-mcp","name":"get-current-date",
		"description":"Get the current date in Shanghai, as yyyy-MM-dd.",
		"inputSchema":{"type":"object","properties":{},"additionalProperties":false},
		"outputSchema":{"type":"object","properties":{"date":{"type":"string","format":"date"}},"required":["date"]}}`))
	if err != nil {
		panic(err)
	}
	store := tooldocs.NewStore()
	if err := store.Register(ctx, tooldocs.Entry{Tool: &tool}); err != nil {
		panic(err)
	}

	var describer tooldocs.Describer = store
	if declarer, ok := describer.(tooldocs.Declarer); ok {
		decls, err := declarer.TypeScript(ctx, []string{"12306-mcp:get-current-date"}, tooldocs.TypeScriptOptions{})
		if err != nil {
			panic(err)
		}
		fmt.Print(decls)
	}
	// Output:
	// /** The tools a program calls, as `await tools.<namespace>.<name>(args)`. */
	// interface Tools {
	//   "12306-mcp": {
	//     /** Get the current date in Shanghai, as yyyy-MM-dd. */
	//     "get-current-date"(args?: {}): Promise<_12306McpGetCurrentDateResult>;
	//   };
	// }
	// declare const tools: Tools;
	//
	// interface _12306McpGetCurrentDateResult {
	//   /** @format date */
	//   date: string;
	// }
}

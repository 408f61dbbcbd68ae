package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/itchyny/gojq"

	"github.com/metatools-go/metatools/errors"
)

// Limits of json:query.
const (
	// maxQueryBytes is the longest program.
	maxQueryBytes = 8 << 10
	// maxInputTextBytes is the longest document given as text.
	maxInputTextBytes = 4 << 20
	// defaultMaxResults and maxMaxResults bound the number of results.
	defaultMaxResults = 100
	maxMaxResults     = 1000
	// maxQueryOutputBytes bounds the JSON size of the results.
	maxQueryOutputBytes = 1 << 20
)

type queryInput struct {
	Query      string         `json:"query" jsonschema:"The jq program, such as \".items[] | select(.price < 10) | .name\" or \"[.users[] | {name, email}]\"."`
	Input      any            `json:"input,omitempty" jsonschema:"The JSON document to query, as a JSON value: object, array, string, number, boolean or null."`
	InputText  string         `json:"inputText,omitempty" jsonschema:"The JSON document as text, when you have it as a string (such as the body of an HTTP response); large integers keep their precision. Give input or inputText, not both; with neither the input is null."`
	Variables  map[string]any `json:"variables,omitempty" jsonschema:"JSON values the program reads as variables: {\"min\": 10} is $min."`
	MaxResults int            `json:"maxResults,omitempty" jsonschema:"The most results to return; the rest are dropped and truncated is set."`
}

type queryOutput struct {
	Results   []any `json:"results" jsonschema:"The values the program produced, in order."`
	Count     int   `json:"count" jsonschema:"The number of results returned."`
	Truncated bool  `json:"truncated" jsonschema:"Set when the program produced more than maxResults values, or more than 1 MiB of JSON: results holds the first ones."`
}

func jsonQueryTool(cfg *config) (Tool, error) {
	return newTool(spec{
		namespace: "json",
		name:      "query",
		title:     "Query JSON with jq",
		description: "Run a jq program on a JSON document to extract, filter, reshape or aggregate data: " +
			"paths (.a.b[0]), iteration (.[]), select, map, sort_by, group_by, length, keys, to_entries, string interpolation, @csv, and the rest of the jq language. " +
			"Returns every value the program produces. Use it to pick the few fields you need out of a large API response " +
			"instead of reading it whole. The program runs with a time limit and cannot read files, the environment or the network; " +
			"a step that would build a string over 8 MiB or an array over 1048576 elements fails.",
		tags: []string{"json", "jq", "query", "filter", "transform", "data"},
		input: func(props map[string]*jsonschema.Schema) {
			props["query"].MinLength = ptr(1)
			props["query"].MaxLength = ptr(maxQueryBytes)
			props["variables"].PropertyNames = &jsonschema.Schema{Pattern: "^[A-Za-z_][A-Za-z0-9_]*$"}
			props["maxResults"].Minimum = ptr(1.0)
			props["maxResults"].Maximum = ptr(float64(maxMaxResults))
			props["maxResults"].Default = []byte(fmt.Sprint(defaultMaxResults))
		},
		examples: []Example{
			{Name: "filter", Description: "The names of the products under 10.", Args: map[string]any{
				"query": ".products[] | select(.price < 10) | .name",
				"input": map[string]any{"products": []any{
					map[string]any{"name": "pen", "price": 2.5},
					map[string]any{"name": "lamp", "price": 35},
					map[string]any{"name": "mug", "price": 8},
				}},
			}},
			{Name: "aggregate", Description: "Count the issues of each state, from a document given as text.", Args: map[string]any{
				"query":     "group_by(.state) | map({state: .[0].state, count: length})",
				"inputText": `[{"id":1,"state":"open"},{"id":2,"state":"closed"},{"id":3,"state":"open"}]`,
			}},
			{Name: "variables", Description: "Select with a threshold passed as a variable.", Args: map[string]any{
				"query":     "[.[] | select(.score >= $min)] | length",
				"input":     []any{map[string]any{"score": 72}, map[string]any{"score": 91}, map[string]any{"score": 55}},
				"variables": map[string]any{"min": 70},
			}},
		},
	}, func(ctx context.Context, in queryInput) (queryOutput, error) {
		return runQuery(ctx, &in, cfg.queryTimeout)
	})
}

func runQuery(ctx context.Context, in *queryInput, timeout time.Duration) (queryOutput, error) {
	const id = "json:query"
	if err := checkSize(id, "query", in.Query, maxQueryBytes); err != nil {
		return queryOutput{}, err
	}
	if err := checkSize(id, "inputText", in.InputText, maxInputTextBytes); err != nil {
		return queryOutput{}, err
	}
	if in.Input != nil && in.InputText != "" {
		return queryOutput{}, validationError(id, "give the document as input or as inputText, not both")
	}
	maxResults := in.MaxResults
	if maxResults == 0 {
		maxResults = defaultMaxResults
	}
	if maxResults < 0 || maxResults > maxMaxResults {
		return queryOutput{}, validationError(id, "maxResults is %d, it must be from 1 to %d", maxResults, maxMaxResults)
	}
	input := in.Input
	if in.InputText != "" {
		var err error
		if input, err = decodeJSONText(in.InputText); err != nil {
			return queryOutput{}, err
		}
	}
	names := slices.Sorted(maps.Keys(in.Variables))
	values := make([]any, len(names))
	for i, name := range names {
		if !isName(name) {
			return queryOutput{}, validationError(id, "variable name %q is not a name: use ASCII letters, digits and '_', not starting with a digit", name)
		}
		values[i] = in.Variables[name]
		names[i] = "$" + name
	}
	code, err := compileQuery(in.Query, names)
	if err != nil {
		return queryOutput{}, err
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := queryOutput{Results: []any{}}
	size := 0
	iter := code.RunWithContext(runCtx, input, values...)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := v.(error); isErr {
			var halt *gojq.HaltError
			switch {
			case errors.As(err, &halt) && halt.Value() == nil:
				// halt: the program ends without error.
			case ctx.Err() != nil:
				return queryOutput{}, ctx.Err()
			case errors.Is(err, context.DeadlineExceeded):
				return queryOutput{}, fmt.Errorf("the query did not finish within %s", timeout)
			default:
				return queryOutput{}, fmt.Errorf("query failed: %w", err)
			}
			break
		}
		if len(out.Results) == maxResults {
			out.Truncated = true
			break
		}
		if valueSize(v, maxQueryOutputBytes) > maxQueryOutputBytes {
			// A value made of shared parts can be far larger than the
			// memory it takes: it is not encoded at all.
			out.Truncated = true
			break
		}
		raw, err := gojq.Marshal(v)
		if err != nil {
			return queryOutput{}, fmt.Errorf("query result %d: %w", len(out.Results), err)
		}
		if size += len(raw); size > maxQueryOutputBytes {
			out.Truncated = true
			break
		}
		out.Results = append(out.Results, json.RawMessage(raw))
	}
	out.Count = len(out.Results)
	return out, nil
}

// compileQuery parses and compiles a jq program with the given variable
// names ("$name"). The compiled program cannot read the environment,
// modules or further inputs: gojq grants none by default.
func compileQuery(query string, variables []string) (*gojq.Code, error) {
	if strings.Contains(query, guardPrefix) {
		return nil, fmt.Errorf("invalid query: names starting with %q are reserved", guardPrefix)
	}
	parsed, err := gojq.Parse(query)
	if err != nil {
		var perr *gojq.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("invalid query: %w at offset %d", err, max(perr.Offset-len(perr.Token), 0))
		}
		return nil, fmt.Errorf("invalid query: %w", err)
	}
	guardProgram(parsed)
	code, err := gojq.Compile(parsed, append(guardFunctions(), gojq.WithVariables(variables))...)
	if err != nil {
		return nil, fmt.Errorf("invalid query: %w", err)
	}
	return code, nil
}

// decodeJSONText decodes one JSON value, keeping numbers exact.
func decodeJSONText(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var serr *json.SyntaxError
		switch {
		case errors.As(err, &serr):
			return nil, fmt.Errorf("inputText is not valid JSON: %w (at offset %d)", err, serr.Offset)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("inputText is not valid JSON: it ends before the value does")
		}
		return nil, fmt.Errorf("inputText is not valid JSON: %w", err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("inputText is not valid JSON: more data follows the value that ends at offset %d", end)
	}
	return v, nil
}

package openapi_test

import (
	"testing"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

// FuzzImport checks that no document makes the importer panic or hang,
// and that whatever it imports is a valid tool with a usable schema. The
// seeds are small documents that exercise the importer's paths (the
// fixtures under testdata are too large to mutate quickly).
func FuzzImport(f *testing.F) {
	f.Add(document("3.1.0", `/t/{id}:
  parameters: [{name: id, in: path, required: true, schema: {$ref: '#/components/schemas/N'}}]
  get:
    operationId: get
    parameters: [{name: q, in: query, schema: {type: array, items: {type: string}}}, {name: X-H, in: header, schema: {type: string}}]
    responses: {"200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/N'}}}}}
  post:
    security: [{k: []}, {}]
    requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {id: {$ref: '#/components/schemas/N'}}}}}}
    responses: {"201": {description: ok}}`,
		`schemas: {N: {type: [object, "null"], properties: {n: {$ref: '#/components/schemas/N'}, ro: {type: integer, readOnly: true}}}}
securitySchemes: {k: {type: apiKey, in: query, name: key}}`))
	f.Add(document("3.0.3", `/a:
  put:
    operationId: put
    requestBody: {content: {application/json: {schema: {allOf: [{$ref: '#/components/schemas/B'}], nullable: true}}}}
    responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {b: {type: number, minimum: 1, exclusiveMinimum: true}}}}}}}`,
		`schemas: {B: {type: array, items: {type: string, enum: [x, y], nullable: true, example: x}}}`))
	f.Add([]byte(`{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/":{"get":{"responses":{}}}}}`))
	validator := toolmodel.NewValidator()
	f.Fuzz(func(t *testing.T, data []byte) {
		regs, err := openapi.Import("fuzz", data, openapi.WithBaseURL("https://api.example.com"))
		if err != nil {
			return
		}
		for _, r := range regs {
			if err := r.Tool.Validate(); err != nil {
				t.Fatalf("invalid tool: %v", err)
			}
			if err := r.Backend.Validate(); err != nil {
				t.Fatalf("invalid backend: %v", err)
			}
			if err := validator.ValidateInput(&r.Tool, map[string]any{}); err != nil && !isValidation(err) {
				t.Fatalf("unusable input schema: %v", err)
			}
		}
	})
}

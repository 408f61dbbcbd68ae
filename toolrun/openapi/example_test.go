package openapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

const petstore = `
openapi: 3.1.0
info: {title: Pet store, version: 1.0.0}
servers: [{url: "https://pets.example.com/v1"}]
security: [{apiKey: []}]
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Get a pet by its ID
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses:
        "200":
          description: The pet.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pet"}
  /pets:
    post:
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Pet"}
      responses:
        "201": {description: Added.}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string}
  securitySchemes:
    apiKey: {type: apiKey, in: header, name: X-Api-Key}
`

func ExampleImport() {
	regs, err := openapi.Import("petstore", []byte(petstore))
	if err != nil {
		panic(err)
	}
	for _, r := range regs {
		b := r.Backend.HTTP
		fmt.Printf("%s: %s %s%s, key in secret %s\n", r.Tool.ID(), b.Method, b.BaseURL, b.Path, b.Auth.Secret)
		fmt.Printf("  %s\n", r.Tool.Description)
		fmt.Printf("  input: %s\n", r.Tool.InputSchema)
	}
	// Output:
	// petstore:post_pets: POST https://pets.example.com/v1/pets, key in secret PETSTORE_API_KEY
	//   Add a pet
	//   input: {"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}
	// petstore:getPet: GET https://pets.example.com/v1/pets/{petId}, key in secret PETSTORE_API_KEY
	//   Get a pet by its ID
	//   input: {"additionalProperties":false,"properties":{"petId":{"type":"integer"}},"required":["petId"],"type":"object"}
}

// Imported tools go in an index, where a model finds them, and run on the
// HTTP executor.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k3y" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"id": 7, "name": "Rex", "path": %q}`, r.URL.Path)
	}))
	defer api.Close()

	regs, err := openapi.Import("petstore", []byte(petstore), openapi.WithBaseURL(api.URL+"/v1"))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	idx := toolindex.New()
	if err := idx.RegisterMany(ctx, regs); err != nil {
		panic(err)
	}
	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "get a pet", Limit: 1})
	if err != nil {
		panic(err)
	}
	found := page.Items[0].ID
	fmt.Println("found:", found)

	exec := httpexec.New(httpexec.WithSecrets(httpexec.MapSecrets{"PETSTORE_API_KEY": "k3y"}))
	defer exec.Close()
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendHTTP: exec}),
		toolrun.WithIndex(idx))
	res, err := runner.Run(ctx, found, map[string]any{"petId": 7})
	fmt.Println(res.Structured, err)

	// Arguments are validated against the imported schema before any
	// request is sent.
	_, err = runner.Run(ctx, found, map[string]any{"petId": "seven"})
	fmt.Println(errors.CodeOf(err))
	// Output:
	// found: petstore:getPet
	// map[id:7 name:Rex path:/v1/pets/7] <nil>
	// validation
}

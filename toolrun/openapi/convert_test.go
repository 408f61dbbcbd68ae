package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

// document returns an OpenAPI document of the given version with the
// given paths and components, written in YAML (indented for their place).
func document(version, paths, components string) []byte {
	return fmt.Appendf(nil, `openapi: %s
info: {title: T, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
%s
components:
%s
`, version, indent(paths), indent(components))
}

func indent(s string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// importOne imports a document and returns its registrations and warnings.
func importOne(t *testing.T, doc []byte, opts ...openapi.Option) ([]toolindex.Registration, []string) {
	t.Helper()
	var warnings []string
	opts = append(opts, openapi.WithWarnings(func(w openapi.Warning) { warnings = append(warnings, w.String()) }))
	regs, err := openapi.Import("ns", doc, opts...)
	require.NoError(t, err)
	return regs, warnings
}

// schemaJSON returns a schema as compact JSON.
func schemaJSON(t *testing.T, schema any) string {
	t.Helper()
	raw, err := toolmodel.SchemaJSON(schema)
	require.NoError(t, err)
	return string(raw)
}

func TestSchemaConversion(t *testing.T) {
	tests := []struct {
		name       string
		version    string
		schema     string // the request body's schema, YAML
		components string
		want       string // the body argument's schema
	}{
		{"3.0 nullable type", "3.0.3", `{type: string, nullable: true}`, `{}`,
			`{"type":["string","null"]}`},
		{"3.0 nullable enum", "3.0.3", `{type: string, enum: [a, b], nullable: true}`, `{}`,
			`{"enum":["a","b",null],"type":["string","null"]}`},
		{"3.0 nullable allOf", "3.0.3", `{allOf: [{$ref: '#/components/schemas/N'}], nullable: true, description: d}`, `{schemas: {N: {type: integer}}}`,
			`{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"d"}`},
		{"3.0 nullable oneOf", "3.0.3", `{oneOf: [{type: integer}, {type: string}], nullable: true}`, `{}`,
			`{"anyOf":[{"oneOf":[{"type":"integer"},{"type":"string"}]},{"type":"null"}]}`},
		{"3.0 exclusive bounds", "3.0.3", `{type: number, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}`, `{}`,
			`{"exclusiveMinimum":0,"maximum":9,"type":"number"}`},
		{"example becomes examples", "3.0.3", `{type: string, example: x}`, `{}`,
			`{"examples":["x"],"type":"string"}`},
		{"OpenAPI keywords dropped", "3.0.3", `{type: array, items: {type: object, discriminator: {propertyName: k}, xml: {name: n}, x-internal: true, externalDocs: {url: "https://x"}}}`, `{}`,
			`{"items":{"type":"object"},"type":"array"}`},
		{"3.0 ignores constraints beside a $ref", "3.0.3", `{$ref: '#/components/schemas/S', maxLength: 3, description: d}`, `{schemas: {S: {type: string}}}`,
			`{"description":"d","type":"string"}`},
		{"3.1 applies constraints beside a $ref", "3.1.0", `{$ref: '#/components/schemas/S', maxLength: 3}`, `{schemas: {S: {type: string}}}`,
			`{"allOf":[{"type":"string"}],"maxLength":3}`},
		{"3.1 type arrays and const", "3.1.0", `{type: [integer, "null"], const: 3}`, `{}`,
			`{"const":3,"type":["integer","null"]}`},
		{"boolean schemas", "3.1.0", `{type: array, items: false, prefixItems: [true]}`, `{}`,
			`{"items":false,"prefixItems":[true],"type":"array"}`},
		{"readOnly properties leave requests", "3.0.3", `{type: array, items: {$ref: '#/components/schemas/R'}}`,
			`{schemas: {R: {type: object, required: [id, name], properties: {id: {type: integer, readOnly: true}, name: {type: string}}}}}`,
			`{"items":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"},"type":"array"}`},
		{"recursive references go to $defs", "3.0.3", `{type: array, items: {$ref: '#/components/schemas/A'}}`,
			`{schemas: {A: {type: object, properties: {b: {$ref: '#/components/schemas/B'}}}, B: {type: object, properties: {a: {$ref: '#/components/schemas/A'}}}}}`,
			`{"items":{"$ref":"#/$defs/A"},"type":"array"}`},
		{"escaped pointers", "3.0.3", `{type: array, items: {$ref: '#/components/schemas/a~1b'}}`, `{schemas: {a/b: {type: integer}}}`,
			`{"items":{"type":"integer"},"type":"array"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := document(tt.version, fmt.Sprintf(`/x:
  post:
    operationId: op
    requestBody:
      required: true
      content:
        application/json:
          schema: %s
    responses: {"204": {description: ok}}`, tt.schema), tt.components)
			regs, warnings := importOne(t, doc)
			require.Len(t, regs, 1, "warnings: %v", warnings)
			schema, err := toolmodel.DecodeSchema(regs[0].Tool.InputSchema)
			require.NoError(t, err)
			body, ok := schema.Properties["body"]
			require.True(t, ok, "the body is one argument")
			assert.JSONEq(t, tt.want, schemaJSON(t, body))
		})
	}
}

func TestRecursiveDefs(t *testing.T) {
	doc := document("3.1.0", `/tree:
  get:
    operationId: getTree
    responses:
      "200":
        description: ok
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}`,
		`schemas:
  Node:
    type: object
    properties:
      name: {type: string}
      children: {type: array, items: {$ref: '#/components/schemas/Node'}}`)
	regs, _ := importOne(t, doc)
	require.Len(t, regs, 1)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},
		"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
		schemaJSON(t, regs[0].Tool.OutputSchema))
	v := toolmodel.NewValidator()
	require.NoError(t, v.ValidateOutput(&regs[0].Tool, map[string]any{"name": "a", "children": []any{map[string]any{"name": "b", "children": []any{}}}}))
	require.Error(t, v.ValidateOutput(&regs[0].Tool, map[string]any{"children": []any{map[string]any{"name": 1}}}))
}

// A document whose references fan out would inline into an exponentially
// large schema; the converter falls back to $defs, linear in the document.
func TestFanOutFallsBackToDefs(t *testing.T) {
	var components strings.Builder
	components.WriteString("schemas:\n")
	for level := range 12 {
		fmt.Fprintf(&components, "  L%d:\n    type: object\n    properties:\n", level)
		for p := range 6 {
			if level == 11 {
				fmt.Fprintf(&components, "      p%d: {type: string}\n", p)
			} else {
				fmt.Fprintf(&components, "      p%d: {$ref: '#/components/schemas/L%d'}\n", p, level+1)
			}
		}
	}
	doc := document("3.0.3", `/x:
  get:
    operationId: op
    responses:
      "200":
        description: ok
        content:
          application/json:
            schema: {$ref: '#/components/schemas/L0'}`, components.String())
	regs, _ := importOne(t, doc)
	require.Len(t, regs, 1)
	schema, err := toolmodel.DecodeSchema(regs[0].Tool.OutputSchema)
	require.NoError(t, err)
	assert.Len(t, schema.Defs, 12)
	assert.Less(t, len(schemaJSON(t, schema)), 10000)
}

func TestParametersAndBodies(t *testing.T) {
	doc := document("3.0.3", `/items/{id}:
  parameters:
    - {name: id, in: path, required: true, schema: {type: string}, description: "path-level"}
  put:
    operationId: replace
    parameters:
      - {name: id, in: path, required: true, schema: {type: integer}}
      - {name: body, in: query, schema: {type: string}, deprecated: true}
      - {name: filter, in: query, content: {application/json: {schema: {type: object}}}}
      - {name: X-Trace, in: header, schema: {type: string}}
      - {name: Content-Type, in: header, schema: {type: string}}
      - {name: sid, in: cookie, schema: {type: string}}
    requestBody:
      required: true
      content:
        application/json:
          schema: {type: object, properties: {id: {type: string}}}
    responses: {"204": {description: ok}}
  patch:
    operationId: patch
    requestBody:
      content:
        application/x-www-form-urlencoded; charset=utf-8:
          schema: {type: object, properties: {name: {type: string}, tags: {type: array, items: {type: string}}}}
    responses: {"204": {description: ok}}
  options:
    operationId: probe
    requestBody:
      content:
        text/plain:
          schema: {type: string}
    responses: {"204": {description: ok}}
  post:
    operationId: post
    requestBody:
      content:
        application/merge-patch+json:
          schema: {type: object, properties: {name: {type: string}}, additionalProperties: {type: string}}
    responses: {"204": {description: ok}}
  delete:
    operationId: remove
    parameters:
      - {name: sid, in: cookie, required: true, schema: {type: string}}
    responses: {"204": {description: ok}}
/forms:
  post:
    operationId: notAnObject
    requestBody:
      required: true
      content:
        application/x-www-form-urlencoded:
          schema: {type: string}
    responses: {"204": {description: ok}}`, `{}`)
	regs, warnings := importOne(t, doc)
	require.Len(t, regs, 4)
	byName := map[string]toolindex.Registration{}
	for _, r := range regs {
		byName[r.Tool.Name] = r
	}

	replace := byName["replace"]
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["id","requestBody"],"properties":{
		"id":{"type":"integer"},
		"body":{"type":"string","deprecated":true},
		"filter":{"type":"object"},
		"X-Trace":{"type":"string"},
		"requestBody":{"type":"object","properties":{"id":{"type":"string"}}}}}`, schemaJSON(t, replace.Tool.InputSchema),
		"the operation's id overrides the path's; the body clashes with id and the name body is taken")
	assert.Equal(t, &toolmodel.HTTPBackend{BaseURL: "https://api.example.com", Method: "PUT", Path: "/items/{id}",
		QueryParams: []string{"body", "filter"}, HeaderParams: []string{"X-Trace"}, BodyParam: "requestBody"}, replace.Backend.HTTP)

	post := byName["post"]
	assert.JSONEq(t, `{"type":"object","additionalProperties":{"type":"string"},"required":["id"],"properties":{
		"id":{"type":"string","description":"path-level"},"name":{"type":"string"}}}`, schemaJSON(t, post.Tool.InputSchema),
		"a JSON object body is spread over the arguments, extra properties allowed as the body allows them")
	assert.Empty(t, post.Backend.HTTP.BodyParam)

	patch := byName["patch"]
	assert.JSONEq(t, `{"type":"object","required":["id"],"properties":{
		"id":{"type":"string","description":"path-level"},"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}}}`,
		schemaJSON(t, patch.Tool.InputSchema), "a form body is spread over the arguments like a JSON one")
	assert.Equal(t, toolmodel.BodyForm, patch.Backend.HTTP.BodyEncoding)
	assert.Equal(t, toolmodel.BodyJSON, post.Backend.HTTP.BodyEncoding, "JSON is preferred")

	probe := byName["probe"]
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["id"],"properties":{
		"id":{"type":"string","description":"path-level"}}}`, schemaJSON(t, probe.Tool.InputSchema))

	assert.Equal(t, []string{
		`POST /forms: left out: the form request body is not described as an object`,
		`PUT /items/{id}: cookie parameter "sid" is ignored`,
		`DELETE /items/{id}: left out: cookie parameter "sid" is required, and cookies are not supported`,
		`OPTIONS /items/{id}: the optional request body (text/plain) is ignored: only JSON and form bodies are supported`,
	}, warnings)
}

func TestNamesAndDescriptions(t *testing.T) {
	doc := document("3.0.3", `/:
  get:
    responses: {"204": {description: ok}}
/pets/{petId}/photos:
  get:
    summary: "  List photos  "
    description: List photos
    responses: {"204": {description: ok}}
  post:
    operationId: "pets/upload photo!"
    description: Upload a photo.
    tags: [Pets, "Photo Album", pets]
    responses: {"204": {description: ok}}
/a:
  get:
    operationId: same
    deprecated: true
    responses: {"204": {description: ok}}
/b:
  get:
    operationId: same
    responses: {"204": {description: ok}}`, `{}`)
	regs, warnings := importOne(t, doc)
	var got []string
	for _, r := range regs {
		got = append(got, fmt.Sprintf("%s|%s|%v", r.Tool.ID(), r.Tool.Description, r.Tool.Tags))
	}
	assert.Equal(t, []string{
		"ns:get|GET /|[]",
		"ns:same|GET /a (deprecated)|[]",
		"ns:same_2|GET /b|[]",
		"ns:get_pets_by_petId_photos|List photos|[]",
		"ns:pets_upload_photo|Upload a photo.|[pets photo-album]",
	}, got)
	assert.Equal(t, []string{
		`GET /b: tool name "same" is taken by another operation: named "same_2"`,
		`GET /pets/{petId}/photos: path parameter "petId" is not declared: taken as a string`,
		`POST /pets/{petId}/photos: path parameter "petId" is not declared: taken as a string`,
	}, warnings)
	assert.True(t, regs[3].Tool.Annotations.ReadOnlyHint)
	assert.False(t, regs[4].Tool.Annotations.ReadOnlyHint)
}

func TestPathParameters(t *testing.T) {
	doc := document("3.0.3", `/users/{user}/keys/{key}:
  get:
    operationId: getKey
    parameters:
      - {name: key, in: path, required: true, schema: {type: integer}}
      - {name: stale, in: path, required: true, schema: {type: string}}
    responses: {"204": {description: ok}}`, `{}`)
	regs, warnings := importOne(t, doc)
	require.Len(t, regs, 1)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["key","user"],
		"properties":{"key":{"type":"integer"},"user":{"type":"string"}}}`, schemaJSON(t, regs[0].Tool.InputSchema))
	assert.Equal(t, []string{
		`GET /users/{user}/keys/{key}: path parameter "stale" is not in the path: ignored`,
		`GET /users/{user}/keys/{key}: path parameter "user" is not declared: taken as a string`,
	}, warnings)
}

func TestSecurityMapping(t *testing.T) {
	schemes := `securitySchemes:
  key: {type: apiKey, in: header, name: X-Key}
  cookieKey: {type: apiKey, in: cookie, name: k}
  digest: {type: http, scheme: digest}
  basic: {type: http, scheme: basic}
  oauthCode: {type: oauth2, flows: {authorizationCode: {authorizationUrl: "https://a/auth", tokenUrl: "https://a/token", scopes: {}}}}
  oidc: {type: openIdConnect, openIdConnectUrl: "https://a/.well-known/openid-configuration"}
  mtls: {type: mutualTLS}`
	tests := []struct {
		security string
		want     *toolmodel.HTTPAuth
		warning  string
	}{
		{`[{key: []}]`, &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "NS_KEY", In: "header", Name: "X-Key"}, ""},
		{`[{cookieKey: []}, {key: []}]`, &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "NS_KEY", In: "header", Name: "X-Key"}, ""},
		{`[{}, {key: []}]`, &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "NS_KEY", In: "header", Name: "X-Key"}, ""},
		{`[{oauthCode: [read]}]`, &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "NS_OAUTH_CODE"}, ""},
		{`[{oidc: []}]`, &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "NS_OIDC"}, ""},
		{`[{cookieKey: []}, {}]`, nil, ""},
		{`[{key: [], oidc: []}]`, nil, "calls are sent without credentials: schemes key and oidc are required together, which is not supported"},
		{`[{digest: []}]`, nil, `calls are sent without credentials: HTTP auth scheme "digest" of scheme "digest" is not supported`},
		{`[{basic: []}]`, nil, `calls are sent without credentials: basic auth of scheme "basic" needs a user name (see WithCredentials)`},
		{`[{mtls: []}]`, nil, `calls are sent without credentials: security scheme "mtls" of type "mutualTLS" is not supported`},
		{`[{nope: []}]`, nil, `calls are sent without credentials: security scheme "nope" is not defined`},
	}
	for _, tt := range tests {
		t.Run(tt.security, func(t *testing.T) {
			doc := document("3.1.0", `/x:
  get:
    operationId: op
    security: `+tt.security+`
    responses: {"204": {description: ok}}`, schemes)
			regs, warnings := importOne(t, doc)
			require.Len(t, regs, 1)
			assert.Equal(t, tt.want, regs[0].Backend.HTTP.Auth)
			if tt.warning == "" {
				assert.Empty(t, warnings)
			} else {
				assert.Equal(t, []string{"GET /x: " + tt.warning}, warnings)
			}
		})
	}
}

func TestServers(t *testing.T) {
	op := `/x:
  get:
    operationId: op
    responses: {"204": {description: ok}}`
	withServers := func(servers string) []byte {
		return []byte(strings.Replace(string(document("3.0.3", op, `{}`)), `servers: [{url: "https://api.example.com"}]`, servers, 1))
	}
	tests := []struct {
		name    string
		doc     []byte
		opts    []openapi.Option
		want    string
		wantErr string
	}{
		{"variables take their defaults", withServers(`servers: [{url: "https://{region}.example.com/{v}/", variables: {region: {default: eu}, v: {default: v1}}}]`), nil,
			"https://eu.example.com/v1", ""},
		{"the option wins", withServers(`servers: [{url: "https://api.example.com"}]`), []openapi.Option{openapi.WithBaseURL("http://127.0.0.1:8080/api/")},
			"http://127.0.0.1:8080/api", ""},
		{"a relative server needs a base", withServers(`servers: [{url: "/api/v3"}]`), nil,
			"", `server URL "/api/v3" is relative: give the API's URL with WithBaseURL`},
		{"no servers means /", withServers(``), nil,
			"", `server URL "/" is relative`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			regs, warnings := importOne(t, tt.doc, tt.opts...)
			if tt.wantErr != "" {
				assert.Empty(t, regs)
				require.Len(t, warnings, 1)
				assert.Contains(t, warnings[0], tt.wantErr)
				return
			}
			require.Len(t, regs, 1)
			assert.Equal(t, tt.want, regs[0].Backend.HTTP.BaseURL)
		})
	}
}

func TestImportURL(t *testing.T) {
	doc := []byte(strings.Replace(string(document("3.0.3", `/x:
  get:
    operationId: op
    responses: {"204": {description: ok}}`, `{}`)), `https://api.example.com`, `/api`, 1))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /specs/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(doc) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	regs, err := openapi.ImportURL(ctx, "ns", srv.URL+"/specs/openapi.yaml", openapi.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	require.Len(t, regs, 1)
	assert.Equal(t, srv.URL+"/api", regs[0].Backend.HTTP.BaseURL, "a relative server is resolved against the document's URL")

	_, err = openapi.ImportURL(ctx, "ns", srv.URL+"/missing.yaml", openapi.WithHTTPClient(srv.Client()))
	require.ErrorIs(t, err, errors.ErrNotFound)

	_, err = openapi.ImportURL(ctx, "ns", srv.URL+"/specs/openapi.yaml", openapi.WithHTTPClient(srv.Client()), openapi.WithMaxDocumentBytes(10))
	require.ErrorIs(t, err, errors.ErrResourceExhausted)

	_, err = openapi.ImportURL(ctx, "ns", "file:///etc/passwd")
	require.ErrorIs(t, err, errors.ErrInvalidArgument)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = openapi.ImportURL(canceled, "ns", srv.URL+"/specs/openapi.yaml", openapi.WithHTTPClient(srv.Client()))
	require.ErrorIs(t, err, errors.ErrCanceled)
}

func TestImportErrors(t *testing.T) {
	tests := []struct {
		name, namespace, doc, want string
	}{
		{"bad namespace", "a b", string(document("3.0.3", "{}", "{}")), `namespace "a b"`},
		{"not YAML", "ns", "{[", "malformed OpenAPI document"},
		{"Swagger 2.0", "ns", `{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}`, "not an OpenAPI 3 document"},
		{"another version", "ns", `{"openapi": "4.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}`, `OpenAPI version "4.0.0" is not supported`},
		{"a YAML alias bomb", "ns", "openapi: 3.0.0\na: &a [x, x, x, x, x, x, x, x, x, x]\n" + aliasBomb(9), "excessive aliasing"},
		{"external reference", "ns", string(document("3.0.3", `/x:
  get:
    responses:
      "200":
        description: ok
        content: {application/json: {schema: {$ref: "other.yaml#/Pet"}}}`, "{}")), "external reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.Import(tt.namespace, []byte(tt.doc))
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := openapi.ImportFile(context.Background(), "ns", filepath.Join(t.TempDir(), "nope.yaml"))
		require.ErrorIs(t, err, errors.ErrNotFound)
	})
	t.Run("a reference to nothing", func(t *testing.T) {
		doc := document("3.1.0", `/x:
  get:
    operationId: op
    responses:
      "200":
        description: ok
        content: {application/json: {schema: {type: object, properties: {a: {$ref: "#/components/schemas/Nope/properties/b"}}}}}`,
			`schemas: {Nope: {type: object}}`)
		_, err := openapi.Import("ns", doc)
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "#/components/schemas/Nope/properties/b")
	})
}

// The fixtures exist in both versions and describe the same API; both
// import to the same tools.
func TestVersionsImportAlike(t *testing.T) {
	v30, _ := importFixture(t, "tracker-3.0.yaml")
	v31, _ := importFixture(t, "tracker-3.1.json")
	raw30, err := json.Marshal(v30)
	require.NoError(t, err)
	raw31, err := json.Marshal(v31)
	require.NoError(t, err)
	assert.JSONEq(t, string(raw30), string(raw31))
}

func TestImportFileReadsJSONAndYAML(t *testing.T) {
	dir := t.TempDir()
	yamlDoc := document("3.0.3", `/x:
  get:
    operationId: op
    responses: {"204": {description: ok}}`, `{}`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api.yaml"), yamlDoc, 0o600))
	jsonDoc := `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"servers":[{"url":"https://api.example.com"}],
		"paths":{"/x":{"get":{"operationId":"op","responses":{"204":{"description":"ok"}}}}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api.json"), []byte(jsonDoc), 0o600))
	fromYAML, err := openapi.ImportFile(context.Background(), "ns", filepath.Join(dir, "api.yaml"))
	require.NoError(t, err)
	fromJSON, err := openapi.ImportFile(context.Background(), "ns", filepath.Join(dir, "api.json"))
	require.NoError(t, err)
	require.Len(t, fromYAML, 1)
	assert.Equal(t, fromYAML, fromJSON)
}

func isValidation(err error) bool { return errors.CodeOf(err) == errors.Validation }

// aliasBomb returns YAML whose aliases expand to 10^levels nodes.
func aliasBomb(levels int) string {
	var b strings.Builder
	prev := "a"
	for i := range levels {
		name := fmt.Sprintf("b%d", i)
		fmt.Fprintf(&b, "%s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = name
	}
	return b.String()
}

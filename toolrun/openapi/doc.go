// Package openapi turns the operations of an OpenAPI 3.0 or 3.1 document
// into tools: one [toolindex.Registration] per operation, a tool served by
// an HTTP backend ([toolmodel.BackendHTTP]) that the sibling package
// toolrun/httpexec executes.
//
// Documents are read in JSON or YAML from bytes ([Import]), a file
// ([ImportFile]) or a URL ([ImportURL]) with github.com/getkin/kin-openapi,
// which only the programs importing this package compile.
//
//	regs, err := openapi.ImportFile(ctx, "petstore", "petstore.yaml",
//		openapi.WithCredentials(func(scheme string) openapi.Credentials {
//			return openapi.Credentials{Secret: "PETSTORE_TOKEN"}
//		}))
//	if err != nil { ... }
//	err = idx.RegisterMany(ctx, regs)
//
// # From operation to tool
//
//   - ID: namespace:operationId, the operationId made a valid name (other
//     characters become '_'); without one, a name from the method and the
//     path: GET /pets/{petId} is get_pets_by_petId. A name already taken
//     gets a suffix _2, _3, ... with a [Warning].
//   - Description: the summary, then the description, the first line
//     ending in "(deprecated)" for a deprecated operation. Tags: the
//     operation's, normalized.
//     Version: the document's. Annotations: GET, HEAD and OPTIONS are
//     read-only, PUT and DELETE idempotent. Metadata["openapi"] records the
//     method, path and operationId.
//   - Input schema: one property per path, query and header parameter
//     (path and operation parameters merged; cookie parameters are
//     ignored, and an operation that requires one is left out), plus the
//     request body, JSON or else an HTML form
//     (application/x-www-form-urlencoded, which must describe an object;
//     the backend's BodyEncoding says which): its properties become
//     arguments of their own when it is an object schema with no other
//     constraint and no property named like a parameter, else it is one
//     argument named "body" (or
//     "requestBody", "request_body" when taken), the backend's BodyParam.
//     When every argument has its place, the schema refuses others
//     (additionalProperties false), so that a mistyped name is caught by
//     validation rather than sent. An operation whose required body is
//     neither (a file upload, plain text) is left out.
//   - Output schema: the schema of the first 2xx JSON response, when it
//     describes an object, as MCP requires.
//   - Schemas: local $refs are inlined; recursive ones become references
//     into the tool schema's "$defs" (and so does every reference of a
//     document whose references would inline into a huge schema). OpenAPI
//     3.0's dialect becomes JSON Schema 2020-12: nullable adds "null" to the
//     type, boolean exclusive bounds become numbers, example becomes
//     examples; readOnly properties leave input schemas, writeOnly ones
//     output schemas. Every schema is checked with the runner's validator,
//     so that an imported tool is one that runs; references outside the
//     document are refused.
//   - Backend: the operation's method and path below the first server URL
//     of the operation, its path or the document (variables at their
//     defaults, relative URLs resolved against the document's URL), or the
//     URL given with [WithBaseURL]. Query and header parameters are listed
//     for the executor.
//   - Authentication: the first security requirement that maps to one
//     scheme the executor supports: an API key in a header or the query,
//     HTTP bearer or basic, OAuth2 client credentials (with the token URL
//     and the requirement's scopes), and any other OAuth2 flow or OpenID
//     Connect as a bearer token held in the secret. Secrets are named, not
//     held: by default NAMESPACE_SCHEME in upper snake case, such as
//     PETSTORE_API_KEY; [WithCredentials] names them otherwise and gives
//     the basic-auth user or the OAuth2 client ID. A requirement of several
//     schemes at once cannot be mapped; the tool then has no credentials
//     and a [Warning] says so.
//
// Warnings ([WithWarnings]) report what was left out; errors are for a
// document that cannot be read at all ([errors.InvalidArgument]).
//
// # Cost and limits
//
// Parsing a document costs far more than its size: tens of times in
// memory, and minutes for a document of 20 MB. A document over the size
// limit, 8 MiB unless [WithMaxDocumentBytes] says otherwise, is refused
// before it is parsed ([ErrDocumentTooLarge]), and neither a file nor a
// response is read beyond it. [ImportFile] and [ImportURL] take a
// context that bounds the fetch and ends the import before the parse and
// between two operations; the parse itself, bounded by the size limit,
// runs to its end. Errors name a document's URL without its query, user
// info or fragment, which may hold credentials.
package openapi

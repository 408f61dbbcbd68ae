package toolserver_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// ExampleServer_Authenticate serves a page next to /mcp behind the same
// bearer tokens: a request without one gets 401, and a named token's
// request has its caller, as an MCP request would.
func ExampleServer_Authenticate() {
	idx := toolindex.New()
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{}), toolrun.WithIndex(idx))
	ops, err := toolops.New(idx, tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx))), runner)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := toolserver.New(ops)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	opts := toolserver.HTTPOptions{BearerTokens: []toolserver.BearerToken{{Name: "ops", Token: "s3cret"}}}
	page := srv.Authenticate(opts, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello, %s", toolops.CallerFrom(r.Context()).Metadata[toolserver.MetadataSubject])
	}))
	for _, token := range []string{"", "wrong", "s3cret"} {
		req := httptest.NewRequest(http.MethodGet, "/status", http.NoBody)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		page.ServeHTTP(rec, req)
		fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	// Output:
	// 401 missing bearer token
	// 401 invalid bearer token
	// 200 hello, token:ops
}

package catalog_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
)

// The server a configuration file describes, embedded in a program of
// one's own: the same server `metatools serve --config` runs.
func Example() {
	ctx := context.Background()
	cfg, err := config.Load("testdata/embedded.yaml")
	if err != nil {
		log.Fatal(err)
	}
	cat, err := catalog.Build(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer cat.Close()
	srv, err := cat.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	// Mount the handler on a server of one's own; here, a test server.
	web := httptest.NewServer(srv.HTTPHandler(cat.HTTPOptions()))
	defer web.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "embedder", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: web.URL}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	fmt.Println(session.InitializeResult().ServerInfo.Name)
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "list_namespaces", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StructuredContent.(map[string]any)["namespaces"])
	// Output:
	// acme-tools
	// [json text time]
}

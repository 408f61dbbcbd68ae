package catalog_test

import (
	"context"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/metatools-go/metatools/toolindex"
)

// TestGRPCService imports a real gRPC server's health service through its
// reflection, then finds and runs it.
func TestGRPCService(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	healthServer := health.NewServer()
	healthServer.SetServingStatus("", grpc_health_v1.HealthCheckResponse_SERVING)
	grpc_health_v1.RegisterHealthServer(srv, healthServer)
	reflection.Register(srv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)

	cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
grpc:
  - name: health
    address: %q
    services: [grpc.health.v1.Health]
    tls: {insecure: true}
`, ln.Addr().String()))
	ups := cat.Upstreams()
	require.Len(t, ups, 1)
	require.Empty(t, ups[0].Error)
	assert.Equal(t, 3, ups[0].Tools, "Check, List and Watch")

	ctx := context.Background()
	page, err := cat.Index.Search(ctx, toolindex.SearchRequest{Query: "health check"})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	assert.Equal(t, "health:health_check", page.Items[0].ID)

	res, err := cat.Runner.Run(ctx, "health:health_check", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"status": "SERVING"}, res.Structured)
}

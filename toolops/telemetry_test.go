package toolops_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/metatools-go/metatools/toolops"
)

// TestMetrics shows the service's measures: the duration of each search
// and listing, by kind and outcome, and a gauge of the upstreams by
// state.
func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	ups := []toolops.Upstream{
		{Name: "builtin", Kind: "builtin", State: toolops.UpstreamUp},
		{Name: "github", Kind: "mcp", State: toolops.UpstreamFailed},
		{Name: "jira", Kind: "openapi", State: toolops.UpstreamUp},
	}
	ops := newCatalogue(t, nil).ops(t, toolops.WithUpstreams(func() []toolops.Upstream { return ups }),
		toolops.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	ctx := context.Background()

	_, err := ops.Search(ctx, toolops.SearchRequest{Query: "tool"})
	require.NoError(t, err)
	_, err = ops.Search(ctx, toolops.SearchRequest{})
	require.NoError(t, err)
	_, err = ops.Search(ctx, toolops.SearchRequest{Limit: -1})
	require.Error(t, err)

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	searches, states := map[string]uint64{}, map[string]int64{}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch m.Name {
		case toolops.MetricSearchDuration:
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				kind, _ := dp.Attributes.Value(toolops.AttrSearchKind)
				outcome, _ := dp.Attributes.Value("error.type")
				searches[kind.AsString()+" "+outcome.AsString()] += dp.Count
			}
		case toolops.MetricUpstreams:
			for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
				state, _ := dp.Attributes.Value(toolops.AttrUpstreamState)
				states[state.AsString()] += dp.Value
			}
		}
	}
	assert.Equal(t, map[string]uint64{"search ": 1, "list ": 1, "list invalid_argument": 1}, searches)
	assert.Equal(t, map[string]int64{toolops.UpstreamUp: 2, toolops.UpstreamFailed: 1}, states)
}

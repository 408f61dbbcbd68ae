package tooldocs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/tooldocs/tooldocstest"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestIndexResolverConformance(t *testing.T) {
	tooldocstest.RunResolverConformance(t, func(t *testing.T, tools []toolmodel.Tool) tooldocs.ToolResolver {
		idx := toolindex.New()
		for _, tool := range tools {
			require.NoError(t, idx.Register(t.Context(), toolindex.Registration{
				Tool:    tool,
				Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: tool.Name}},
			}))
		}
		return tooldocs.IndexResolver(idx)
	})
}

func TestCatalogResolverConformance(t *testing.T) {
	tooldocstest.RunResolverConformance(t, func(t *testing.T, tools []toolmodel.Tool) tooldocs.ToolResolver {
		c := newCatalog()
		for i := range tools {
			c.put(&tools[i])
		}
		return c
	})
}

func TestEstimateTokensConformance(t *testing.T) {
	tooldocstest.RunEstimatorConformance(t, tooldocs.TokenEstimatorFunc(tooldocs.EstimateTokens))
}

package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
)

// TestSearchWithEmbeddings configures an embeddings endpoint whose
// vectors put "chronometer" and "time" together, and checks that the
// built-in tools are embedded and that a query of a word no tool uses
// finds a time tool.
func TestSearchWithEmbeddings(t *testing.T) {
	var mu sync.Mutex
	var texts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "m" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		texts = append(texts, req.Input...)
		mu.Unlock()
		data := make([]map[string]any, len(req.Input))
		for i, text := range req.Input {
			v := make([]float32, 32)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				word = strings.Trim(word, ".,?!'")
				switch word {
				case "chronometer", "time":
					v[0] += 4
				default:
					h := fnv.New32a()
					_, _ = h.Write([]byte(word))
					v[1+h.Sum32()%31]++
				}
			}
			data[i] = map[string]any{"index": i, "embedding": v}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()

	cat := build(t, fmt.Sprintf("search: {embeddings: {url: %q, model: m, apiKey: k}}", srv.URL+"/v1"))
	mu.Lock()
	assert.Len(t, texts, cat.Index.Len(), "every built-in tool is embedded once")
	mu.Unlock()

	page, err := cat.Index.Search(context.Background(), toolindex.SearchRequest{Query: "chronometer"})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	assert.True(t, strings.HasPrefix(page.Items[0].ID, "time:"), "first hit %s", page.Items[0].ID)
	mu.Lock()
	assert.Contains(t, texts, "chronometer", "the query is embedded")
	mu.Unlock()
}

package toolsearch_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

// concepts maps words to the dimension of their meaning, so that the test
// service's vectors put synonyms together, as a real model would.
var concepts = map[string]int{
	"delete": 0, "deletes": 0, "erase": 0, "remove": 0, "removes": 0,
	"file": 1, "files": 1, "document": 1, "documents": 1,
	"send": 2, "sends": 2, "deliver": 2,
	"email": 3, "mail": 3, "message": 3, "letter": 3,
	"read": 4, "reads": 4, "open": 4, "view": 4,
}

const testDimensions = 64

// conceptVector returns the deterministic vector of a text: the count of
// each concept it names, and of the hash bucket of each other word.
func conceptVector(text string) []float32 {
	v := make([]float32, testDimensions)
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) {
		if c, ok := concepts[word]; ok {
			v[c]++
			continue
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(word))
		v[len(concepts)/4+int(h.Sum32()%uint32(testDimensions-len(concepts)/4))]++
	}
	return v
}

// embeddingService is an OpenAI-compatible embeddings endpoint returning
// concept vectors; it answers 503 while down is set, and counts requests.
type embeddingService struct {
	*httptest.Server
	down     atomic.Bool
	requests atomic.Int32
	mu       sync.Mutex
	inputs   [][]string
}

func newEmbeddingService(t *testing.T) *embeddingService {
	t.Helper()
	s := &embeddingService{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if s.down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"message":"model is loading"}}`))
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "concepts" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.inputs = append(s.inputs, req.Input)
		s.mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		// Answered in reverse order: the client places vectors by index.
		for i, text := range req.Input {
			data[len(req.Input)-1-i] = item{Index: i, Embedding: conceptVector(text)}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *embeddingService) embedder() *toolsearch.OpenAIEmbedder {
	return &toolsearch.OpenAIEmbedder{BaseURL: s.URL + "/v1", Model: "concepts", Client: s.Client()}
}

func semanticTools() []toolmodel.Tool {
	return []toolmodel.Tool{
		newTool("fs", "delete_file", "Deletes a file from the disk."),
		newTool("fs", "read_file", "Reads the contents of a file."),
		newTool("mail", "send_email", "Sends an email to a recipient."),
	}
}

func newSemanticSearcher(t *testing.T, e toolsearch.Embedder, tools []toolmodel.Tool) *toolsearch.Searcher {
	t.Helper()
	s, err := toolsearch.New(toolsearch.WithEmbedder(e))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Upsert(t.Context(), tools))
	return s
}

func hitIDs(hits []toolindex.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestEmbedderFindsToolsDescribedInOtherWords(t *testing.T) {
	service := newEmbeddingService(t)
	lexicalOnly, err := toolsearch.New()
	require.NoError(t, err)
	defer lexicalOnly.Close()
	require.NoError(t, lexicalOnly.Upsert(t.Context(), semanticTools()))
	query := toolindex.SearchQuery{Text: "erase a document", Limit: 3}

	hits, err := lexicalOnly.Search(t.Context(), query)
	require.NoError(t, err)
	assert.Empty(t, hits, "no word of the query is in any tool")

	s := newSemanticSearcher(t, service.embedder(), semanticTools())
	hits, err = s.Search(t.Context(), query)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "fs:delete_file", hits[0].ID)

	hits, err = s.Search(t.Context(), toolindex.SearchQuery{Text: "deliver a letter", Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mail:send_email", hits[0].ID)

	hits, err = s.Search(t.Context(), toolindex.SearchQuery{Text: "deliver a letter", Namespace: "fs", Limit: 3})
	require.NoError(t, err)
	assert.NotContains(t, hitIDs(hits), "mail:send_email", "the namespace filters the semantic ranking")
	assert.Equal(t, toolsearch.SemanticStatus{Enabled: true, Embedded: 3}, s.SemanticStatus())
}

func TestEmbedderTextIsNameTitleAndDescription(t *testing.T) {
	service := newEmbeddingService(t)
	newSemanticSearcher(t, service.embedder(), semanticTools()[:1])
	service.mu.Lock()
	defer service.mu.Unlock()
	assert.Equal(t, [][]string{{"delete file. Deletes a file from the disk."}}, service.inputs)
}

func TestEmbedderOutageLeavesLexicalSearchAndCatchesUp(t *testing.T) {
	service := newEmbeddingService(t)
	service.down.Store(true)
	s := newSemanticSearcher(t, service.embedder(), semanticTools())

	status := s.SemanticStatus()
	assert.Equal(t, 0, status.Embedded)
	assert.Equal(t, 3, status.Pending)
	require.Error(t, status.LastErr)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(status.LastErr))
	assert.Contains(t, status.LastErr.Error(), "model is loading")

	hits, err := s.Search(t.Context(), toolindex.SearchQuery{Text: "read a file", Limit: 3})
	require.NoError(t, err, "the lexical ranking answers without the service")
	require.NotEmpty(t, hits)
	assert.Equal(t, "fs:read_file", hits[0].ID)

	service.down.Store(false)
	hits, err = s.Search(t.Context(), toolindex.SearchQuery{Text: "erase a document", Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, hits, "the pending tools are embedded with the next query")
	assert.Equal(t, "fs:delete_file", hits[0].ID)
	assert.Equal(t, toolsearch.SemanticStatus{Enabled: true, Embedded: 3}, s.SemanticStatus())
}

func TestEmbedderFollowsChanges(t *testing.T) {
	service := newEmbeddingService(t)
	s := newSemanticSearcher(t, service.embedder(), semanticTools())
	before := service.requests.Load()

	require.NoError(t, s.Upsert(t.Context(), semanticTools()))
	assert.Equal(t, before, service.requests.Load(), "unchanged tools are not embedded again")

	require.NoError(t, s.Remove(t.Context(), []string{"fs:delete_file"}))
	hits, err := s.Search(t.Context(), toolindex.SearchQuery{Text: "erase a document", Limit: 3})
	require.NoError(t, err)
	assert.NotContains(t, hitIDs(hits), "fs:delete_file")

	changed := semanticTools()[2]
	changed.Description = "Deletes an email from the mailbox."
	require.NoError(t, s.Upsert(t.Context(), []toolmodel.Tool{changed}))
	hits, err = s.Search(t.Context(), toolindex.SearchQuery{Text: "erase a letter", Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "mail:send_email", hits[0].ID, "a changed tool is embedded again")
	assert.Equal(t, 2, s.SemanticStatus().Embedded)
}

func TestEmbedderBatchesLargeCatalogues(t *testing.T) {
	service := newEmbeddingService(t)
	tools := make([]toolmodel.Tool, 300)
	for i := range tools {
		tools[i] = newTool("bulk", fmt.Sprintf("tool_%03d", i), "Does one thing.")
	}
	s := newSemanticSearcher(t, service.embedder(), tools)
	assert.Equal(t, int32(3), service.requests.Load(), "300 texts in batches of 128")
	assert.Equal(t, 300, s.SemanticStatus().Embedded)
}

func TestOpenAIEmbedderRequestAndErrors(t *testing.T) {
	var got struct {
		auth string
		body map[string]any
	}
	status, answer := http.StatusOK, `{"data":[{"embedding":[1,0]},{"embedding":[0,1]}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.auth = r.Header.Get("Authorization")
		got.body = nil
		_ = json.NewDecoder(r.Body).Decode(&got.body)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	e := &toolsearch.OpenAIEmbedder{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: "k", Dimensions: 2, Client: srv.Client()}

	vectors, err := e.Embed(t.Context(), []string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{1, 0}, {0, 1}}, vectors)
	assert.Equal(t, "Bearer k", got.auth)
	assert.Equal(t, map[string]any{"model": "m", "input": []any{"a", "b"}, "dimensions": float64(2)}, got.body)

	for _, tc := range []struct {
		status int
		answer string
		code   errors.Code
		msg    string
	}{
		{http.StatusUnauthorized, `{"error":{"message":"Incorrect API key"}}`, errors.Unauthenticated, "Incorrect API key"},
		{http.StatusTooManyRequests, `{"error":"slow down"}`, errors.RateLimited, "slow down"},
		{http.StatusBadGateway, `upstream down`, errors.Unavailable, "upstream down"},
		{http.StatusOK, `{"data":[{"embedding":[1,0]}]}`, errors.Internal, "1 vectors for 2 texts"},
	} {
		status, answer = tc.status, tc.answer
		_, err := e.Embed(t.Context(), []string{"a", "b"})
		require.Error(t, err, tc.answer)
		assert.Equal(t, tc.code, errors.CodeOf(err), tc.answer)
		assert.Contains(t, err.Error(), tc.msg)
	}

	_, err = (&toolsearch.OpenAIEmbedder{Model: "m"}).Embed(t.Context(), []string{"a"})
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "no BaseURL")
}

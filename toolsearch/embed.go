package toolsearch

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// Embedder turns texts into vectors whose cosine similarity measures how
// close the texts' meanings are: an embedding model behind an API.
// [OpenAIEmbedder] speaks to any OpenAI-compatible `/v1/embeddings`
// endpoint (OpenAI, Ollama, vLLM, llama.cpp's server, LiteLLM).
//
// Embed returns one vector per text, in the texts' order, all of the same
// dimension. It must be safe for concurrent use: a [Searcher] embeds a
// query while another call embeds new tools.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// WithEmbedder adds a semantic ranking to the searcher's: each tool's name,
// title and description are embedded when the tool is upserted, each
// query when it is searched, and the tools whose vectors are closest to
// the query's are fused with the BM25F ranking (and the lexical one, with
// [WithFusion]) by reciprocal-rank fusion. It finds tools a query
// describes in other words ("erase a document" for delete_file), which
// no lexical ranking can.
//
// The embedding service is never in the way of the lexical search: a tool
// whose embedding fails is indexed all the same and embedded again at the
// next Upsert or Search, and a query the service cannot embed is ranked
// without it. [Searcher.SemanticStatus] says how many tools are embedded,
// how many wait, and the last failure. Vectors are kept in memory only,
// also with [WithPath]: a reopened index embeds its tools again as they
// are upserted.
func WithEmbedder(e Embedder) Option {
	return func(c *config) { c.embedder = e }
}

// maxEmbedText bounds the bytes of a tool's text that are embedded:
// embedding models read a few thousand tokens at most, and a tool's
// first paragraphs say what it does.
const maxEmbedText = 4096

// maxEmbedBatch bounds the texts sent in one call to the embedder, so
// that registering a large catalogue makes requests of reasonable size.
const maxEmbedBatch = 128

// SemanticStatus is the state of a [Searcher]'s semantic ranking.
type SemanticStatus struct {
	// Enabled says whether the searcher has an [Embedder].
	Enabled bool
	// Embedded is the number of tools with a vector.
	Embedded int
	// Pending is the number of tools waiting for theirs: new or changed
	// tools whose embedding failed.
	Pending int
	// LastErr is the last error of the embedder, or nil when its last
	// call succeeded.
	LastErr error
}

// SemanticStatus reports the state of the semantic ranking.
func (s *Searcher) SemanticStatus() SemanticStatus {
	if s == nil || s.semantic == nil {
		return SemanticStatus{}
	}
	return s.semantic.status()
}

// semanticIndex holds the tools' unit vectors and the texts of the tools
// still to embed.
type semanticIndex struct {
	embedder Embedder

	mu      sync.Mutex
	vectors map[string]vector
	pending map[string]string
	lastErr error
}

// vector is a tool's unit vector and the text it embeds.
type vector struct {
	text   string
	values []float32
}

func newSemanticIndex(e Embedder) *semanticIndex {
	return &semanticIndex{embedder: e, vectors: map[string]vector{}, pending: map[string]string{}}
}

// identifierSpaces turns the separators of an identifier into spaces, so
// that an embedding model reads "create_issue" as the words it holds.
var identifierSpaces = strings.NewReplacer("_", " ", "-", " ", ".", " ", "/", " ")

// embedText returns the text of a tool that is embedded.
func embedText(d *document) string {
	var b strings.Builder
	b.WriteString(identifierSpaces.Replace(d.name))
	for _, part := range []string{d.title, d.description} {
		if part != "" {
			b.WriteString(". ")
			b.WriteString(part)
		}
	}
	return toolmodel.CutUTF8(b.String(), maxEmbedText)
}

// enqueue queues the documents whose text has no vector yet for
// [semanticIndex.embedPending].
func (x *semanticIndex) enqueue(docs []*document) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, d := range docs {
		text := embedText(d)
		if x.vectors[d.id].text == text {
			delete(x.pending, d.id)
			continue
		}
		x.pending[d.id] = text
	}
}

// remove forgets the tools with ids.
func (x *semanticIndex) remove(ids []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		delete(x.vectors, id)
		delete(x.pending, id)
	}
}

func (x *semanticIndex) status() SemanticStatus {
	x.mu.Lock()
	defer x.mu.Unlock()
	return SemanticStatus{Enabled: true, Embedded: len(x.vectors), Pending: len(x.pending), LastErr: x.lastErr}
}

// embedPending embeds the pending tools' texts, and query when it is not
// empty, in batches of maxEmbedBatch; the query comes first, in the
// first batch. It returns the query's unit vector, or nil when the query
// could not be embedded. The tools of a failed batch stay pending.
func (x *semanticIndex) embedPending(ctx context.Context, query string) []float32 {
	x.mu.Lock()
	if len(x.pending) == 0 && query == "" {
		x.mu.Unlock()
		return nil
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range x.pending {
			if !yield(id) {
				return
			}
		}
	})
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = x.pending[id]
	}
	x.mu.Unlock()
	if query != "" {
		ids = append([]string{""}, ids...)
		texts = append([]string{toolmodel.CutUTF8(query, maxEmbedText)}, texts...)
	}

	var queryVector []float32
	for start := 0; start < len(texts); start += maxEmbedBatch {
		end := min(start+maxEmbedBatch, len(texts))
		vectors, err := x.embed(ctx, texts[start:end])
		x.mu.Lock()
		x.lastErr = err
		for i, v := range vectors {
			id := ids[start+i]
			if id == "" {
				queryVector = v
				continue
			}
			// A tool removed or changed since its text was read keeps
			// its newer state.
			if text, ok := x.pending[id]; ok && text == texts[start+i] {
				x.vectors[id] = vector{text: text, values: v}
				delete(x.pending, id)
			}
		}
		x.mu.Unlock()
		if err != nil {
			break
		}
	}
	return queryVector
}

// embed calls the embedder and checks its answer: one finite, non-zero
// vector per text, all of one dimension, returned normalised to unit
// length.
func (x *semanticIndex) embed(ctx context.Context, texts []string) ([][]float32, error) {
	const op = "toolsearch.Embedder.Embed"
	vectors, err := x.embedder.Embed(ctx, texts)
	if err != nil {
		if cerr := errors.FromContext(ctx, op, err); cerr != nil {
			return nil, cerr
		}
		return nil, errors.WithOp(op, err)
	}
	if len(vectors) != len(texts) {
		return nil, errors.Opf(op, errors.Internal, "%d vectors for %d texts", len(vectors), len(texts))
	}
	for i, v := range vectors {
		if len(v) == 0 || len(v) != len(vectors[0]) {
			return nil, errors.Opf(op, errors.Internal, "vector %d has dimension %d, vector 0 has %d", i, len(v), len(vectors[0]))
		}
		if !normalize(v) {
			return nil, errors.Opf(op, errors.Internal, "vector %d is zero or not finite", i)
		}
	}
	return vectors, nil
}

// normalize scales v to unit length in place, and reports whether it
// could: a zero vector or one with a value that is not finite cannot be.
func normalize(v []float32) bool {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	norm := math.Sqrt(sum)
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return false
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return true
}

// rank returns the first end tools in namespace (all when it is empty)
// by the cosine similarity of their vectors to the query's, best first,
// ties in ID order; nil when the query cannot be embedded. Tools of
// another dimension than the query's (the model changed) are left out.
func (x *semanticIndex) rank(ctx context.Context, query, namespace string, end int) []toolindex.Hit {
	q := x.embedPending(ctx, query)
	if q == nil {
		return nil
	}
	x.mu.Lock()
	hits := make([]toolindex.Hit, 0, len(x.vectors))
	for id, v := range x.vectors {
		if len(v.values) == len(q) && inNamespace(id, namespace) {
			hits = append(hits, toolindex.Hit{ID: id, Score: dot(q, v.values)})
		}
	}
	x.mu.Unlock()
	slices.SortFunc(hits, func(a, b toolindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits[:min(end, len(hits))]
}

// dot returns the dot product of two vectors of the same dimension.
func dot(a, b []float32) float64 {
	var sum float64
	for i := range a {
		sum += float64(a[i]) * float64(b[i])
	}
	return sum
}

package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// OpenAIEmbedder is an [Embedder] that calls an OpenAI-compatible
// embeddings endpoint: POST {BaseURL}/embeddings with the model's name
// and a batch of texts, answered with one vector per text. OpenAI's API
// (BaseURL "https://api.openai.com/v1"), Ollama ("http://localhost:11434/v1"),
// vLLM, llama.cpp's server and LiteLLM speak it.
//
// Its fields are read at each call; set them before the first. It is safe
// for concurrent use.
type OpenAIEmbedder struct {
	// BaseURL is the API's root, up to and including its version
	// ("https://api.openai.com/v1").
	BaseURL string
	// Model names the embedding model ("text-embedding-3-small",
	// "nomic-embed-text").
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Dimensions, when positive, asks models that can shorten their
	// vectors for vectors of this size.
	Dimensions int
	// Client sends the requests; nil means a client with a 30-second
	// timeout.
	Client *http.Client
}

// defaultEmbedClient is the client of an [OpenAIEmbedder] without one.
var defaultEmbedClient = &http.Client{Timeout: 30 * time.Second}

// maxEmbedResponse bounds the bytes of an embeddings response that are
// read: a batch of maxEmbedBatch vectors of 4,096 numbers, written out
// in full, takes about 12 MiB.
const maxEmbedResponse = 64 << 20

// Embed implements [Embedder]. Errors carry the code of the HTTP status
// ([errors.Unauthenticated] for 401, [errors.RateLimited] for 429,
// [errors.Unavailable] for 5xx and for a service that cannot be reached)
// and the message of the API's error body; an answer that is not one
// vector per text has code [errors.Internal]. An embedder without BaseURL
// or Model, or a nil *OpenAIEmbedder, fails with [errors.InvalidArgument].
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	const op = "toolsearch.OpenAIEmbedder.Embed"
	if len(texts) == 0 {
		return nil, nil
	}
	if e == nil {
		return nil, errors.Opf(op, errors.InvalidArgument, "the embedder is nil")
	}
	if e.BaseURL == "" || e.Model == "" {
		return nil, errors.Opf(op, errors.InvalidArgument, "BaseURL and Model must be set")
	}
	body, err := json.Marshal(embeddingsRequest{Model: e.Model, Input: texts, Dimensions: e.Dimensions})
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "encode the request: %w", err)
	}
	url := strings.TrimSuffix(e.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, errors.Opf(op, errors.InvalidArgument, "BaseURL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	client := e.Client
	if client == nil {
		client = defaultEmbedClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if cerr := errors.FromContext(ctx, op, nil); cerr != nil {
			return nil, cerr
		}
		return nil, errors.Opf(op, errors.Unavailable, "%w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbedResponse+1))
	if err != nil {
		return nil, errors.Opf(op, errors.Unavailable, "read the response: %w", err)
	}
	if len(raw) > maxEmbedResponse {
		return nil, errors.Opf(op, errors.ResourceExhausted, "response larger than %d bytes", maxEmbedResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errors.Opf(op, statusCode(resp.StatusCode), "%s: %s", resp.Status, apiErrorMessage(raw))
	}
	vectors, err := decodeEmbeddings(raw, len(texts))
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "%w", err)
	}
	return vectors, nil
}

type embeddingsRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// decodeEmbeddings decodes the answer to a request of n texts: n vectors,
// placed by their index (in the answer's order when it gives none), each
// given once, all of one non-zero dimension.
func decodeEmbeddings(raw []byte, n int) ([][]float32, error) {
	var resp embeddingsResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("decode the response: %w", err)
	}
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%d vectors for %d texts", len(resp.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= n {
			return nil, fmt.Errorf("vector %d has index %d, out of [0, %d)", i, at, n)
		}
		if out[at] != nil {
			return nil, fmt.Errorf("index %d is given twice", at)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("vector %d is empty", at)
		}
		out[at] = d.Embedding
	}
	for i, v := range out {
		if len(v) != len(out[0]) {
			return nil, fmt.Errorf("vector %d has dimension %d, vector 0 has %d", i, len(v), len(out[0]))
		}
	}
	return out, nil
}

// statusCode returns the code of an embeddings call answered with a status
// other than 200: every 5xx means the service cannot embed now, whatever
// the gateway in front of it says, and a success that is not 200 is not
// the API's answer.
func statusCode(status int) errors.Code {
	switch {
	case status >= 500:
		return errors.Unavailable
	case status >= 400:
		return errors.CodeFromHTTPStatus(status)
	}
	return errors.Internal
}

// apiErrorMessage returns the message of an API's error body
// ({"error": {"message": ...}} or {"error": "..."}), or the body's start.
func apiErrorMessage(raw []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 {
		var object struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &object) == nil && object.Message != "" {
			return object.Message
		}
		var text string
		if json.Unmarshal(body.Error, &text) == nil && text != "" {
			return text
		}
	}
	return toolmodel.CutUTF8(strings.TrimSpace(string(raw)), 200)
}

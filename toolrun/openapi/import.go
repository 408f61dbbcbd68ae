package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// opImport is the Op of the errors of this package.
const opImport = "openapi.Import"

// maxErrorBody is the most of an error response's body that an error
// quotes.
const maxErrorBody = 1024

// DefaultMaxDocumentBytes is the largest document an import reads unless
// told otherwise with [WithMaxDocumentBytes]: 8 MiB. Parsing costs far
// more than the document's size in time and memory (a 20 MB document
// takes minutes and gigabytes), so that a larger one is refused.
const DefaultMaxDocumentBytes = 8 << 20

// ErrDocumentTooLarge is the cause of the [errors.ResourceExhausted] error
// of an import whose document exceeds the size limit
// ([WithMaxDocumentBytes]); Meta["limit"] holds the limit in bytes.
var ErrDocumentTooLarge = errors.New("OpenAPI document too large")

// Warning reports something of the document that the import could not
// carry over: an operation left out, or a part of one ignored.
type Warning struct {
	// Operation is the operation concerned, such as "GET /pets/{id}", or
	// empty for the document as a whole.
	Operation string
	// Message says what was left out and why.
	Message string
}

// String returns "operation: message".
func (w Warning) String() string {
	if w.Operation == "" {
		return w.Message
	}
	return w.Operation + ": " + w.Message
}

// Option configures an import.
type Option func(*config)

type config struct {
	baseURL     string
	client      *http.Client
	credentials func(scheme string) Credentials
	timeout     time.Duration
	headers     map[string]string
	warn        func(Warning)
	maxBytes    int64
	docURL      *url.URL
}

// WithBaseURL sets the API's base URL, instead of the document's servers:
// for a document without servers, one whose servers are relative, or to
// reach another deployment (a test server, a proxy).
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL = strings.TrimSuffix(u, "/") }
}

// WithHTTPClient sets the client with which [ImportURL] fetches the
// document; the default is [http.DefaultClient].
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) {
		if client != nil {
			c.client = client
		}
	}
}

// WithCredentials says where the credentials of each security scheme come
// from, by the scheme's name in the document. Fields left empty take
// their defaults (see [Credentials]).
func WithCredentials(fn func(scheme string) Credentials) Option {
	return func(c *config) { c.credentials = fn }
}

// WithTimeout sets the timeout of every imported backend
// ([toolmodel.HTTPBackend.Timeout]); by default, or when d <= 0, there is
// none beyond the call's own.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = max(d, 0) }
}

// WithHeaders adds static headers to every request of the imported tools,
// such as a User-Agent or an API version header. They must hold no secret:
// they are written in the tools' backends.
func WithHeaders(h map[string]string) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = map[string]string{}
		}
		for k, v := range h {
			c.headers[k] = v
		}
	}
}

// WithWarnings receives the warnings of the import, one at a time, in the
// order of the document's operations. Without it, warnings are dropped.
func WithWarnings(fn func(Warning)) Option {
	return func(c *config) { c.warn = fn }
}

// WithMaxDocumentBytes caps the size of the documents that [Import],
// [ImportFile] and [ImportURL] accept; n < 1 means
// [DefaultMaxDocumentBytes]. A larger document is refused before it is
// parsed, and a file or response is not read beyond the limit.
func WithMaxDocumentBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

func newConfig(opts []Option) *config {
	c := &config{client: http.DefaultClient, maxBytes: DefaultMaxDocumentBytes}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Import reads an OpenAPI 3.0 or 3.1 document, in JSON or YAML, and returns
// one registration per operation: a tool named namespace:operationId
// served by an HTTP backend bound to the operation. See the package
// documentation for how operations become tools.
//
// References must stay inside the document. A malformed document, or one
// of another version, is an error of code [errors.InvalidArgument]; an
// operation that cannot become a tool is left out with a [Warning]. A
// document larger than the size limit ([WithMaxDocumentBytes]) is an
// error of code [errors.ResourceExhausted] ([ErrDocumentTooLarge]).
func Import(namespace string, doc []byte, opts ...Option) ([]toolindex.Registration, error) {
	cfg := newConfig(opts)
	if int64(len(doc)) > cfg.maxBytes {
		return nil, tooLarge(cfg)
	}
	return importDoc(context.Background(), namespace, doc, cfg)
}

// ImportFile imports the document in the file at path; see [Import]. A
// file larger than the size limit is refused without being read. The
// import stops with ctx's error, of code [errors.Timeout] or
// [errors.Canceled], when ctx ends before the document is parsed or
// between two operations (parsing itself runs to its end: the size limit
// bounds it).
func ImportFile(ctx context.Context, namespace, path string, opts ...Option) ([]toolindex.Registration, error) {
	cfg := newConfig(opts)
	data, err := readFile(path, cfg)
	if err != nil {
		return nil, err
	}
	return importDoc(ctx, namespace, data, cfg)
}

// readFile reads the document in the file at path, refusing a file over
// the size limit: by its size when it is a regular file, else once the
// limit is passed, without reading further.
func readFile(path string, cfg *config) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		code := errors.Internal
		if errors.Is(err, os.ErrNotExist) {
			code = errors.NotFound
		}
		return nil, errors.Opf(opImport, code, "read OpenAPI document: %w", err)
	}
	defer func() { _ = f.Close() }()
	var buf bytes.Buffer
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		if info.Size() > cfg.maxBytes {
			return nil, tooLarge(cfg)
		}
		buf.Grow(int(info.Size()) + bytes.MinRead)
	}
	n, err := buf.ReadFrom(io.LimitReader(f, cfg.maxBytes+1))
	if err != nil {
		return nil, errors.Opf(opImport, errors.Internal, "read OpenAPI document: %w", err)
	}
	if n > cfg.maxBytes {
		return nil, tooLarge(cfg)
	}
	return buf.Bytes(), nil
}

// tooLarge returns the error of a document over the size limit.
func tooLarge(cfg *config) *errors.Error {
	e := errors.Opf(opImport, errors.ResourceExhausted, "%w: it exceeds the limit of %d bytes (WithMaxDocumentBytes)", ErrDocumentTooLarge, cfg.maxBytes)
	e.Meta = map[string]string{"limit": strconv.FormatInt(cfg.maxBytes, 10)}
	return e
}

// ImportURL fetches the document at rawURL with the client of
// [WithHTTPClient] and imports it; see [Import]. Relative server URLs in
// the document are resolved against rawURL. A failure to fetch is
// classified as an HTTP error of the repository's errors package
// ([errors.FromHTTP]), or as [errors.Unavailable] for the network. ctx
// bounds the fetch, and then ends the import as it does [ImportFile]'s; a
// response larger than the size limit is not read beyond it.
func ImportURL(ctx context.Context, namespace, rawURL string, opts ...Option) ([]toolindex.Registration, error) {
	cfg := newConfig(opts)
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "document URL %s is not an absolute http(s) URL", toolrun.RedactURL(rawURL))
	}
	cfg.docURL = u
	data, err := fetch(ctx, cfg, u)
	if err != nil {
		return nil, err
	}
	return importDoc(ctx, namespace, data, cfg)
}

// fetch reads the document at u, up to the size limit.
func fetch(ctx context.Context, cfg *config, u *url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "fetch OpenAPI document: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.5")
	// The document's host may redirect, but not inside the network.
	resp, err := httpexec.GuardRedirects(cfg.client).Do(req)
	if err != nil {
		if e := errors.FromContext(ctx, opImport, nil); e != nil {
			return nil, e
		}
		// The error's URL may hold credentials (an API key in the query):
		// the message names the document by its redacted URL instead.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errors.Opf(opImport, errors.Unavailable, "fetch OpenAPI document %s: %w", toolrun.RedactURL(u.String()), err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, cfg.maxBytes+1))
	if err != nil {
		return nil, errors.Opf(opImport, errors.Unavailable, "fetch OpenAPI document: %w", err)
	}
	if e := errors.FromHTTP(resp.StatusCode, data[:min(len(data), maxErrorBody)]); e != nil {
		// The body quoted may echo the URL, and the key in its query.
		return nil, errors.WithOp(opImport, toolrun.NewRedactor(toolrun.URLSecrets(u.String(), nil)).RedactError(e))
	}
	if int64(len(data)) > cfg.maxBytes {
		return nil, tooLarge(cfg)
	}
	return data, nil
}

// importer holds the state of one import.
type importer struct {
	// ctx ends the import between two operations.
	ctx       context.Context
	namespace string
	cfg       *config
	doc       *openapi3.T
	raw       any // the document as JSON, for resolving schema references
	v30       bool
	validator *toolmodel.Validator
}

func importDoc(ctx context.Context, namespace string, data []byte, cfg *config) (regs []toolindex.Registration, err error) {
	if err := toolmodel.ValidateName(namespace); err != nil {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "namespace %q: %w", namespace, err)
	}
	if err := errors.FromContext(ctx, opImport, nil); err != nil {
		return nil, err
	}
	doc, err := load(data)
	if err != nil {
		return nil, err
	}
	if err := errors.FromContext(ctx, opImport, nil); err != nil {
		return nil, err
	}
	raw, err := asJSON(doc)
	if err != nil {
		return nil, err
	}
	im := &importer{
		ctx:       ctx,
		namespace: namespace,
		cfg:       cfg,
		doc:       doc,
		raw:       raw,
		v30:       doc.IsOpenAPI30(),
		validator: toolmodel.NewValidator(toolmodel.WithCacheSize(1)),
	}
	return im.registrations()
}

// load parses and resolves a document, refusing other versions than 3.0
// and 3.1 and references outside the document.
func load(data []byte) (doc *openapi3.T, err error) {
	// The loader is third-party code facing untrusted input: should it
	// panic on some malformed document, that is a bad document, not a
	// crash of the program importing it.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, errors.Opf(opImport, errors.InvalidArgument, "malformed OpenAPI document: %v", r)
		}
	}()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err = loader.LoadFromData(data)
	if err != nil {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "malformed OpenAPI document: %w", err)
	}
	switch {
	case strings.HasPrefix(doc.OpenAPI, "3.0."), strings.HasPrefix(doc.OpenAPI, "3.1."):
		return doc, nil
	case doc.OpenAPI == "":
		return nil, errors.Opf(opImport, errors.InvalidArgument, "not an OpenAPI 3 document: the openapi field is missing (Swagger 2.0 documents must be converted first)")
	}
	return nil, errors.Opf(opImport, errors.InvalidArgument, "OpenAPI version %q is not supported: 3.0 and 3.1 are", doc.OpenAPI)
}

// asJSON returns the document as decoded JSON.
func asJSON(doc *openapi3.T) (any, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "malformed OpenAPI document: %w", err)
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, errors.Opf(opImport, errors.InvalidArgument, "malformed OpenAPI document: %w", err)
	}
	return raw, nil
}

// warn reports a warning about an operation.
func (im *importer) warn(operation, format string, args ...any) {
	if im.cfg.warn != nil {
		im.cfg.warn(Warning{Operation: operation, Message: fmt.Sprintf(format, args...)})
	}
}

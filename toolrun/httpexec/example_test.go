package httpexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// weatherAPI is a small REST API that wants a bearer token.
func weatherAPI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/v1/cities/paris/weather" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprint(w, `{"message":"no such city"}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"city":"paris","unit":%q,"temperature":21}`, r.URL.Query().Get("unit"))
	}))
}

func Example() {
	srv := weatherAPI()
	defer srv.Close()

	// The tool: arguments city (in the path) and unit (in the query),
	// authenticated with the secret named WEATHER_TOKEN.
	tool := toolmodel.Tool{Namespace: "weather", Tool: mcp.Tool{
		Name:        "current",
		Description: "Current weather in a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["C","F"]}},"required":["city"]}`),
	}}
	backend := toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{
		BaseURL:     srv.URL + "/v1",
		Method:      "GET",
		Path:        "/cities/{city}/weather",
		QueryParams: []string{"unit"},
		Auth:        &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "WEATHER_TOKEN"},
	}}
	idx := toolindex.New()
	ctx := context.Background()
	if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: backend}); err != nil {
		panic(err)
	}

	// Secrets come from the environment by default; here, from memory.
	exec := httpexec.New(httpexec.WithSecrets(httpexec.MapSecrets{"WEATHER_TOKEN": "t0ken"}))
	defer exec.Close()
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendHTTP: exec}),
		toolrun.WithIndex(idx))

	res, err := runner.Run(ctx, "weather:current", map[string]any{"city": "paris", "unit": "C"})
	fmt.Println(res.Structured, err)

	// An HTTP error status is an error of the taxonomy.
	_, err = runner.Run(ctx, "weather:current", map[string]any{"city": "atlantis"})
	fmt.Println(errors.CodeOf(err), errors.Is(err, errors.ErrNotFound))
	// Output:
	// map[city:paris temperature:21 unit:C] <nil>
	// not_found true
}

// Some APIs answer with an error meant for the caller to read and act
// on. A failure rule makes such responses tool failures: results with
// IsError set, which a model sees, instead of Go errors.
func ExampleFailOnStatus() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = fmt.Fprint(w, `{"errors":[{"field":"title","problem":"is required"}]}`)
	}))
	defer srv.Close()

	exec := httpexec.New(httpexec.WithFailureRule(httpexec.FailOnStatus(http.StatusUnprocessableEntity)))
	defer exec.Close()
	out, err := exec.Execute(context.Background(), &toolrun.Call{
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "POST", Path: "/issues"}},
		Args:    map[string]any{"body": "no title"},
	})
	fmt.Println(out.IsError, toolrun.OutputText(out), err)
	// Output:
	// true {"errors":[{"field":"title","problem":"is required"}]} <nil>
}

type userTokenKey struct{}

// Secrets may differ per caller: a source reading the call's context
// gives each user their own token, put in the context by the server
// that authenticated them (or by an execution hook of the runner).
func ExampleSecretSourceFunc() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"authorization":%q}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()

	perUser := httpexec.SecretSourceFunc(func(ctx context.Context, name string) (string, error) {
		if token, ok := ctx.Value(userTokenKey{}).(string); ok && name == "USER_TOKEN" {
			return token, nil
		}
		return "", errors.Errorf(errors.NotFound, "no secret %q for this caller", name)
	})
	exec := httpexec.New(httpexec.WithSecrets(perUser))
	defer exec.Close()
	call := &toolrun.Call{Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{
		BaseURL: srv.URL, Method: "GET", Path: "/me",
		Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "USER_TOKEN"},
	}}}

	ctx := context.WithValue(context.Background(), userTokenKey{}, "alice-token")
	out, err := exec.Execute(ctx, call)
	fmt.Println(out.Structured, err)

	_, err = exec.Execute(context.Background(), call)
	fmt.Println(errors.CodeOf(err), err)
	// Output:
	// map[authorization:Bearer alice-token] <nil>
	// unauthenticated httpexec.Execute: secret "USER_TOKEN" is not available
}

package errors_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metatools-go/metatools/errors"
)

func Example() {
	err := fmt.Errorf("run: %w", &errors.Error{
		Code:   errors.NotFound,
		Op:     "resolve",
		ToolID: "github:create_issue",
		Err:    errors.New("no such tool"),
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, errors.ErrNotFound), errors.CodeOf(err), errors.IsRetryable(err))
	// Output:
	// run: resolve: tool "github:create_issue": no such tool
	// true not_found false
}

// An error sent as a JSON-RPC error object keeps its code on the other side.
func ExampleToWire() {
	sent := errors.Errorf(errors.RateLimited, "quota of %d calls per minute", 60)
	sent.Backend = "http:api.example.com"

	payload, _ := json.Marshal(errors.ToWire(sent))
	fmt.Println(string(payload))

	var w errors.WireError
	_ = json.Unmarshal(payload, &w)
	received := errors.FromWire(&w)
	fmt.Println(received)
	fmt.Println(errors.Is(received, errors.ErrRateLimited), errors.IsRetryable(received))
	// Output:
	// {"code":-32013,"message":"(backend http:api.example.com): quota of 60 calls per minute","data":{"code":"rate_limited","backend":"http:api.example.com","retryable":true,"cause":"quota of 60 calls per minute"}}
	// (backend http:api.example.com): quota of 60 calls per minute
	// true true
}

func ExampleFromHTTP() {
	e := errors.FromHTTP(503, []byte("upstream is restarting"))
	fmt.Println(e.Code, e.Retryable, e)
	// Output:
	// unavailable true upstream is restarting
}

// A component checks its context with FromContext, which classifies the
// context's end.
func ExampleFromContext() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := errors.FromContext(ctx, "toolindex.Search", nil); err != nil {
		fmt.Println(err.Code, err.Retryable, err)
	}
	// Output:
	// canceled false toolindex.Search: context canceled
}

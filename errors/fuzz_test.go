package errors_test

import (
	"encoding/json"
	"testing"

	"github.com/metatools-go/metatools/errors"
)

// FuzzFromWire decodes arbitrary error objects as they arrive off the
// wire: never panics, always yields a code, and a decoded error survives a
// second trip unchanged.
func FuzzFromWire(f *testing.F) {
	f.Add([]byte(`{"code":-32602,"message":"bad params"}`))
	f.Add([]byte(`{"code":-32014,"message":"x","data":{"code":"timeout","op":"run","retryable":true,"cause":"slow"}}`))
	f.Add([]byte(`{"code":0,"message":"","data":{"code":""}}`))
	f.Add([]byte(`{"code":-32603,"message":"m","data":[1,2]}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		var w errors.WireError
		if json.Unmarshal(payload, &w) != nil {
			return
		}
		e := errors.FromWire(&w)
		if e == nil || e.Code == "" {
			t.Fatalf("FromWire(%s) = %+v, want a classified error", payload, e)
		}
		again := errors.FromWire(errors.ToWire(e))
		if again.Code != e.Code || again.Error() != e.Error() || again.Retryable != e.Retryable {
			t.Fatalf("second trip changed %+v into %+v", e, again)
		}
	})
}

// FuzzFromHTTP decodes arbitrary HTTP error responses without panicking.
func FuzzFromHTTP(f *testing.F) {
	f.Add(404, []byte(`not here`))
	f.Add(500, []byte(`{"code":-32603,"message":"m","data":{"code":"internal"}}`))
	f.Add(200, []byte(nil))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := errors.FromHTTP(status, body)
		if (status >= 400) != (e != nil) {
			t.Fatalf("FromHTTP(%d) = %v", status, e)
		}
		if e != nil && e.Code == "" {
			t.Fatalf("FromHTTP(%d, %q) has no code", status, body)
		}
	})
}

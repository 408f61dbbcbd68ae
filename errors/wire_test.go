package errors_test

import (
	"encoding/json"
	"io"
	"reflect"
	"testing"

	"github.com/metatools-go/metatools/errors"
)

func TestWireRoundTripKeepsEveryField(t *testing.T) {
	for _, code := range errors.Codes() {
		orig := &errors.Error{
			Code: code, Op: "execute", ToolID: "gh:create_issue", Backend: "mcp:github",
			Retryable: true, Err: io.ErrUnexpectedEOF, Meta: map[string]string{"attempt": "3"},
		}
		// Through JSON, as a peer would receive it.
		raw, err := json.Marshal(errors.ToWire(orig))
		if err != nil {
			t.Fatal(err)
		}
		var w errors.WireError
		if err := json.Unmarshal(raw, &w); err != nil {
			t.Fatal(err)
		}
		if w.Code != code.RPCCode() || w.Message != orig.Error() {
			t.Errorf("%s: wire object = %d %q", code, w.Code, w.Message)
		}
		got := errors.FromWire(&w)
		if got.Error() != orig.Error() {
			t.Errorf("%s: message %q, want %q", code, got.Error(), orig.Error())
		}
		got.Err, orig.Err = nil, nil
		if !reflect.DeepEqual(got, orig) { //nolint:govet // comparing every field of the two *Error values is the point
			t.Errorf("%s: round trip = %+v, want %+v", code, got, orig)
		}
	}
}

func TestToWireClassifiesForeignErrors(t *testing.T) {
	if errors.ToWire(nil) != nil {
		t.Error("ToWire(nil) != nil")
	}
	got := errors.FromWire(errors.ToWire(io.EOF))
	if got.Code != errors.Internal || got.Error() != "EOF" {
		t.Errorf("FromWire(ToWire(io.EOF)) = %+v", got)
	}
}

func TestFromWireForeignPeer(t *testing.T) {
	tests := []struct {
		name     string
		in       errors.WireError
		wantCode errors.Code
		wantMeta map[string]string
	}{
		{"invalid params", errors.WireError{Code: -32602, Message: "bad"}, errors.InvalidArgument, nil},
		{"method not found", errors.WireError{Code: -32601, Message: "no"}, errors.Unsupported, nil},
		{"resource not found", errors.WireError{Code: -32002, Message: "no"}, errors.NotFound, nil},
		{"header mismatch", errors.WireError{Code: -32020, Message: "no"}, errors.InvalidArgument, nil},
		{"missing client capability", errors.WireError{Code: -32021, Message: "no"}, errors.Unsupported, nil},
		{"unsupported protocol version", errors.WireError{Code: -32022, Message: "no"}, errors.Unsupported, nil},
		{"unknown code", errors.WireError{Code: 17, Message: "odd"}, errors.Internal, nil},
		{"foreign data kept", errors.WireError{Code: -32603, Message: "boom", Data: json.RawMessage(`{"trace":[1,2]}`)},
			errors.Internal, map[string]string{"data": `{"trace":[1,2]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errors.FromWire(&tt.in)
			if got.Code != tt.wantCode || got.Error() != tt.in.Message || !reflect.DeepEqual(got.Meta, tt.wantMeta) {
				t.Errorf("FromWire = %+v (%q)", got, got.Error())
			}
		})
	}
	if errors.FromWire(nil) != nil {
		t.Error("FromWire(nil) != nil")
	}
}

func TestFromWireKeepsUnknownCode(t *testing.T) {
	w := &errors.WireError{Code: -32050, Message: "new", Data: json.RawMessage(`{"code":"quota_frozen"}`)}
	if got := errors.FromWire(w).Code; got != "quota_frozen" {
		t.Errorf("code = %q, want the peer's unknown code kept", got)
	}
}

func TestHTTPRoundTrip(t *testing.T) {
	for _, code := range errors.Codes() {
		orig := errors.Errorf(code, "cause of %s", code)
		status := errors.HTTPStatus(orig)
		body, err := json.Marshal(errors.ToWire(orig))
		if err != nil {
			t.Fatal(err)
		}
		got := errors.FromHTTP(status, body)
		if got.Code != code || got.Error() != orig.Error() || got.Retryable != orig.Retryable {
			t.Errorf("%s: FromHTTP = %+v", code, got)
		}
	}
	if errors.HTTPStatus(nil) != 200 || errors.FromHTTP(204, nil) != nil {
		t.Error("success is not mapped to success")
	}
}

func TestFromHTTPPlainBody(t *testing.T) {
	got := errors.FromHTTP(429, []byte("  too many requests\n"))
	if got.Code != errors.RateLimited || !got.Retryable || got.Error() != "too many requests" || got.Meta["status"] != "429" {
		t.Errorf("FromHTTP = %+v (%q)", got, got.Error())
	}
	if got := errors.FromHTTP(503, nil); got.Error() != "HTTP status 503" {
		t.Errorf("empty body message = %q", got.Error())
	}
	// A JSON body that is not an error object is treated as text.
	if got := errors.FromHTTP(404, []byte(`{"detail":"gone"}`)); got.Code != errors.NotFound || got.Error() != `{"detail":"gone"}` {
		t.Errorf("FromHTTP = %+v", got)
	}
}

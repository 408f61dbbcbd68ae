package errors

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// WireError is a JSON-RPC 2.0 error object, the form in which MCP carries
// protocol errors. It is also the body format for errors sent over HTTP.
//
// Code and Message are readable by any JSON-RPC peer. Data carries the
// taxonomy (code, op, tool, backend, retryable, meta, cause) so that a peer
// using this package recovers the same [*Error], and errors.Is keeps working
// after the trip.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the message.
func (w *WireError) Error() string { return w.Message }

// wireData is the taxonomy part of a WireError, in its Data field.
type wireData struct {
	Code      Code              `json:"code"`
	Op        string            `json:"op,omitempty"`
	ToolID    string            `json:"toolId,omitempty"`
	Backend   string            `json:"backend,omitempty"`
	Retryable bool              `json:"retryable,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	Cause     *string           `json:"cause,omitempty"`
}

// metaData is the Meta key under which [FromWire] keeps the data of an error
// object that a peer outside this taxonomy sent, so that nothing is lost.
const metaData = "data"

// ToWire converts err to a JSON-RPC error object. An error outside the
// taxonomy is classified by [CodeOf]. ToWire returns nil for nil.
func ToWire(err error) *WireError {
	if err == nil {
		return nil
	}
	e := asError(err)
	if e == nil {
		e = E(CodeOf(err), err)
	}
	d := wireData{
		Code:      e.Code,
		Op:        e.Op,
		ToolID:    e.ToolID,
		Backend:   e.Backend,
		Retryable: e.Retryable,
		Meta:      e.Meta,
	}
	if e.Err != nil {
		cause := e.Err.Error()
		d.Cause = &cause
	}
	// Only strings, a bool and a string map are marshaled: this cannot fail.
	data, _ := json.Marshal(d)
	return &WireError{Code: e.Code.RPCCode(), Message: err.Error(), Data: data}
}

// taxonomyData decodes w's data when it was written by [ToWire].
func taxonomyData(w *WireError) (wireData, bool) {
	var d wireData
	if len(w.Data) == 0 || json.Unmarshal(w.Data, &d) != nil {
		return d, false
	}
	return d, d.Code != ""
}

// FromWire converts a JSON-RPC error object back to an *Error. When the
// object carries taxonomy data (see [ToWire]) the result equals the original
// error in every field, with the cause's text standing in for the cause.
// Otherwise the code comes from [CodeFromRPCCode], the message becomes the
// cause, and any data is kept verbatim in Meta["data"]. FromWire returns nil
// for nil.
func FromWire(w *WireError) *Error {
	if w == nil {
		return nil
	}
	if d, ok := taxonomyData(w); ok {
		e := &Error{
			Code:      d.Code,
			Op:        d.Op,
			ToolID:    d.ToolID,
			Backend:   d.Backend,
			Retryable: d.Retryable,
			Meta:      d.Meta,
		}
		if d.Cause != nil {
			e.Err = New(*d.Cause)
		}
		return e
	}
	e := E(CodeFromRPCCode(w.Code), New(w.Message))
	if len(w.Data) > 0 {
		e.Meta = map[string]string{metaData: string(w.Data)}
	}
	return e
}

// HTTPStatus returns the HTTP status that represents err: 200 for nil,
// otherwise the status of its code (see [Code.HTTPStatus]). A server writes
// that status with the JSON of [ToWire] as the body; [FromHTTP] reads both.
func HTTPStatus(err error) int {
	if err == nil {
		return 200
	}
	return CodeOf(err).HTTPStatus()
}

// FromHTTP converts an HTTP error response to an *Error. A body holding a
// [WireError] (as written by a server using [HTTPStatus] and [ToWire]) is
// decoded with [FromWire], so the code survives the trip exactly. Any other
// body becomes the cause's text and the code comes from
// [CodeFromHTTPStatus]; Meta["status"] keeps the status. FromHTTP returns
// nil for a status below 400.
func FromHTTP(status int, body []byte) *Error {
	if status < 400 {
		return nil
	}
	var w WireError
	if json.Unmarshal(body, &w) == nil {
		if _, ok := taxonomyData(&w); ok {
			return FromWire(&w)
		}
	}
	msg := string(bytes.TrimSpace(body))
	if msg == "" {
		msg = fmt.Sprintf("HTTP status %d", status)
	}
	e := E(CodeFromHTTPStatus(status), New(msg))
	e.Meta = map[string]string{"status": fmt.Sprint(status)}
	return e
}

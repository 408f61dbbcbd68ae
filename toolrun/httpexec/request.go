package httpexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// newRequest builds the request of a call to b with args. It does not
// modify args. The secrets it puts in the request are added to used.
func (e *Executor) newRequest(ctx context.Context, b *toolmodel.HTTPBackend, args map[string]any, used *[]string) (*http.Request, error) {
	method := strings.ToUpper(b.Method)
	if method == "" {
		method = http.MethodGet
	}
	base, err := url.Parse(b.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.Opf(opExecute, errors.InvalidArgument, "base URL %s is not an absolute http(s) URL", toolrun.RedactURL(b.BaseURL))
	}
	consumed := make(map[string]bool, len(b.QueryParams)+len(b.HeaderParams)+2)
	path, err := fillPath(b.Path, args, consumed)
	if err != nil {
		return nil, err
	}
	u := *base
	u.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + path
	if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
		return nil, errors.Opf(opExecute, errors.InvalidArgument, "path %q: %w", u.RawPath, err)
	}

	q := base.Query()
	for _, name := range b.QueryParams {
		consumed[name] = true
		v, ok := args[name]
		if !ok || v == nil {
			continue
		}
		if err := addValue(q, name, v); err != nil {
			return nil, paramError("query", name, err)
		}
	}

	header := http.Header{}
	for name, value := range b.Headers {
		if err := checkHeader(name, value); err != nil {
			return nil, err
		}
		header.Set(name, value)
	}
	for _, name := range b.HeaderParams {
		consumed[name] = true
		v, ok := args[name]
		if !ok || v == nil {
			continue
		}
		s, err := simpleString(v)
		if err != nil {
			return nil, paramError("header", name, err)
		}
		if err := checkHeader(name, s); err != nil {
			return nil, err
		}
		header.Set(name, s)
	}
	if header.Get("Accept") == "" {
		header.Set("Accept", "application/json, */*;q=0.5")
	}

	body, contentType, err := requestBody(method, b, args, consumed)
	if err != nil {
		return nil, err
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
		if header.Get("Content-Type") == "" {
			header.Set("Content-Type", contentType)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), reader)
	if err != nil {
		return nil, errors.Opf(opExecute, errors.InvalidArgument, "%s %s: %w", method, toolrun.RedactURL(u.String()), err)
	}
	req.Header = header
	if err := e.authorize(ctx, b.Auth, req, q, used); err != nil {
		return nil, err
	}
	req.URL.RawQuery = q.Encode()
	return req, nil
}

// requestBody returns the body of a call and its content type: the
// argument named b.BodyParam when it is set, else every argument not
// consumed elsewhere, encoded as b.BodyEncoding says. It returns a nil
// body for no body.
func requestBody(method string, b *toolmodel.HTTPBackend, args map[string]any, consumed map[string]bool) (body []byte, contentType string, err error) {
	var value any
	if b.BodyParam != "" {
		v, ok := args[b.BodyParam]
		if !ok {
			return nil, "", nil
		}
		value = v
	} else {
		rest := map[string]any{}
		for name, v := range args {
			if !consumed[name] {
				rest[name] = v
			}
		}
		if len(rest) == 0 {
			switch method {
			case http.MethodPost, http.MethodPut, http.MethodPatch:
				// Servers of these methods commonly insist on a body.
			default:
				return nil, "", nil
			}
		}
		value = rest
	}
	if b.BodyEncoding == toolmodel.BodyForm {
		form, err := formBody(value)
		if err != nil {
			return nil, "", errors.Opf(opExecute, errors.InvalidArgument, "encode the request body as a form: %w", err)
		}
		return form, "application/x-www-form-urlencoded", nil
	}
	body, err = json.Marshal(value)
	if err != nil {
		return nil, "", errors.Opf(opExecute, errors.InvalidArgument, "encode the request body: %w", err)
	}
	return body, "application/json", nil
}

// formBody encodes an object as an HTML form, its properties in name
// order, each as a query parameter would be (see [addValue]); null
// properties are left out.
func formBody(value any) ([]byte, error) {
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the body is %T, not an object", value)
	}
	form := url.Values{}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if obj[name] == nil {
			continue
		}
		if err := addValue(form, name, obj[name]); err != nil {
			return nil, fmt.Errorf("field %q %w", name, err)
		}
	}
	return []byte(form.Encode()), nil
}

// addValue adds the value of a query parameter or form field: a scalar's
// text, one value per item of an array, or an object's JSON.
func addValue(vals url.Values, name string, v any) error {
	list, isList := asList(v)
	if !isList {
		list = []any{v}
	}
	for _, item := range list {
		s, err := queryString(item)
		if err != nil {
			return err
		}
		vals.Add(name, s)
	}
	return nil
}

// fillPath replaces each {name} of template by the URL-escaped argument
// of that name, and marks the names consumed.
func fillPath(template string, args map[string]any, consumed map[string]bool) (string, error) {
	if !strings.Contains(template, "{") {
		if strings.Contains(template, "}") {
			return "", errors.Opf(opExecute, errors.InvalidArgument, "path template %q has unbalanced braces", template)
		}
		return template, nil
	}
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if strings.Contains(rest, "}") {
				return "", errors.Opf(opExecute, errors.InvalidArgument, "path template %q has unbalanced braces", template)
			}
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 || strings.Contains(rest[:open], "}") {
			return "", errors.Opf(opExecute, errors.InvalidArgument, "path template %q has unbalanced braces", template)
		}
		name := rest[open+1 : open+end]
		b.WriteString(rest[:open])
		rest = rest[open+end+1:]
		if name == "" || strings.Contains(name, "{") {
			return "", errors.Opf(opExecute, errors.InvalidArgument, "path template %q has an empty or nested parameter", template)
		}
		consumed[name] = true
		v, ok := args[name]
		if !ok || v == nil {
			return "", errors.Opf(opExecute, errors.InvalidArgument, "path parameter %q is missing", name)
		}
		s, err := pathString(v)
		if err != nil {
			return "", paramError("path", name, err)
		}
		b.WriteString(s)
	}
}

// pathString returns a path parameter's value, escaped: a scalar, or an
// array of scalars joined with commas (OpenAPI's "simple" style).
func pathString(v any) (string, error) {
	items := []any{v}
	if list, ok := asList(v); ok {
		items = list
	}
	parts := make([]string, 0, len(items))
	for _, item := range items {
		s, err := scalarString(item)
		if err != nil {
			return "", err
		}
		parts = append(parts, url.PathEscape(s))
	}
	s := strings.Join(parts, ",")
	switch s {
	case "":
		return "", errors.New("is empty")
	case ".", "..":
		// A dot segment would address another resource.
		return "", errors.New(`must not be "." or ".."`)
	}
	return s, nil
}

// simpleString returns a header parameter's value: a scalar, or an array
// of scalars joined with commas.
func simpleString(v any) (string, error) {
	list, ok := asList(v)
	if !ok {
		return scalarString(v)
	}
	parts := make([]string, 0, len(list))
	for _, item := range list {
		s, err := scalarString(item)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ","), nil
}

// queryString returns a query parameter's value: a scalar's text, or an
// object's JSON (with '<', '>' and '&' as they are: the URL encoding
// escapes them).
func queryString(v any) (string, error) {
	if s, err := scalarString(v); err == nil {
		return s, nil
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// scalarString returns the text of a string, number or boolean; numbers
// are written without exponent, so that 1e6 is "1000000".
func scalarString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), nil
	case json.Number:
		return x.String(), nil
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		raw, err := json.Marshal(x)
		return string(raw), err
	case nil:
		return "", errors.New("is null")
	}
	return "", errors.New("is not a string, number or boolean")
}

// asList returns the items of a slice or array value (other than bytes).
func asList(v any) ([]any, bool) {
	if list, ok := v.([]any); ok {
		return list, true
	}
	rv := reflect.ValueOf(v)
	if (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) || rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false
	}
	list := make([]any, rv.Len())
	for i := range list {
		list[i] = rv.Index(i).Interface()
	}
	return list, true
}

func paramError(in, name string, err error) error {
	return errors.Opf(opExecute, errors.InvalidArgument, "%s parameter %q %w", in, name, err)
}

// checkHeader refuses a header that net/http would refuse to send, with
// an error that names it but does not show its value, which may be a
// secret.
func checkHeader(name, value string) error {
	if name == "" {
		return errors.Opf(opExecute, errors.InvalidArgument, "empty header name")
	}
	for i := 0; i < len(name); i++ {
		if !tokenByte(name[i]) {
			return errors.Opf(opExecute, errors.InvalidArgument, "header name %q is not a valid token", name)
		}
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return errors.Opf(opExecute, errors.InvalidArgument, "header %q has a control character in its value", name)
		}
	}
	return nil
}

// tokenByte reports whether c may appear in an HTTP token (RFC 9110).
func tokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

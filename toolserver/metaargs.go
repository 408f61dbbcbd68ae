package toolserver

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// metaArgs decodes and checks the arguments of one meta-tool. The
// arguments are decoded from JSON once, into a generic JSON value; that
// value is validated once against the meta-tool's input schema, then
// assigned to the input type field by field. Large members (run_tool's
// args, run_chain's steps) are therefore neither decoded twice nor
// copied: the maps the validator saw are the ones the handler gets.
type metaArgs struct {
	tool      string
	schema    *jsonschema.Schema
	validator *toolmodel.Validator
}

// decode returns raw as an In, or an error of code
// [errors.InvalidArgument] whose message says what to correct.
func decodeMetaArgs[In any](m metaArgs, raw json.RawMessage) (In, error) {
	var in In
	var value any = map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &value); err != nil {
			return in, m.invalid(fmt.Sprintf("the arguments are not JSON: %v", err))
		}
	}
	if err := m.validator.Validate(m.schema, value); err != nil {
		msg := err.Error()
		var e *errors.Error
		if errors.As(err, &e) && e.Err != nil {
			msg = e.Err.Error()
		}
		return in, m.invalid(msg)
	}
	if err := assignJSON(reflect.ValueOf(&in).Elem(), value); err != nil {
		return in, m.invalid(err.Error())
	}
	return in, nil
}

// invalid returns the error of arguments that do not fit the meta-tool.
func (m metaArgs) invalid(msg string) *errors.Error {
	e := errors.Errorf(errors.InvalidArgument, "invalid arguments: %s; call %s again with arguments that follow its input schema", msg, m.tool)
	e.Op = m.tool
	return e
}

// assignJSON stores a decoded JSON value (map[string]any, []any, string,
// float64, bool or nil) in dst, following the JSON names of struct
// fields. Validation has checked the value's shape already; assignJSON
// still checks every kind, so that a schema and a type that disagree give
// an error naming the member, never a panic.
func assignJSON(dst reflect.Value, value any) error {
	if value == nil {
		dst.SetZero()
		return nil
	}
	mismatch := func() error {
		return &assignError{msg: fmt.Sprintf("%s cannot hold a JSON %s", dst.Type(), toolmodel.JSONKind(value))}
	}
	switch dst.Kind() {
	case reflect.Interface:
		if dst.NumMethod() > 0 {
			return mismatch()
		}
		dst.Set(reflect.ValueOf(value))
	case reflect.String:
		s, ok := value.(string)
		if !ok {
			return mismatch()
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := value.(bool)
		if !ok {
			return mismatch()
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f, ok := value.(float64)
		if !ok || f != math.Trunc(f) || dst.OverflowInt(int64(f)) || f < math.MinInt64 || f >= math.MaxInt64 {
			return mismatch()
		}
		dst.SetInt(int64(f))
	case reflect.Float32, reflect.Float64:
		f, ok := value.(float64)
		if !ok {
			return mismatch()
		}
		dst.SetFloat(f)
	case reflect.Map:
		obj, ok := value.(map[string]any)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return mismatch()
		}
		if dst.Type().Elem().Kind() == reflect.Interface && dst.Type().Elem().NumMethod() == 0 {
			// The decoded map itself: no copy.
			dst.Set(reflect.ValueOf(obj).Convert(dst.Type()))
			return nil
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(obj))
		for k, v := range obj {
			elem := reflect.New(dst.Type().Elem()).Elem()
			if err := assignJSON(elem, v); err != nil {
				return within(err, k)
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), elem)
		}
		dst.Set(out)
	case reflect.Slice:
		arr, ok := value.([]any)
		if !ok {
			return mismatch()
		}
		out := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
		for i, v := range arr {
			if err := assignJSON(out.Index(i), v); err != nil {
				return within(err, strconv.Itoa(i))
			}
		}
		dst.Set(out)
	case reflect.Struct:
		obj, ok := value.(map[string]any)
		if !ok {
			return mismatch()
		}
		t := dst.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" || !t.Field(i).IsExported() {
				continue
			}
			if v, present := obj[name]; present {
				if err := assignJSON(dst.Field(i), v); err != nil {
					return within(err, name)
				}
			}
		}
	default:
		return mismatch()
	}
	return nil
}

// assignError is a value that its destination cannot hold. The path to
// it is gathered as the error goes up, so that a successful assignment
// builds no path at all.
type assignError struct {
	path []string // innermost first
	msg  string
}

func (e *assignError) Error() string {
	if len(e.path) == 0 {
		return "the arguments: " + e.msg
	}
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(toolmodel.PointerToken(e.path[i]))
	}
	return b.String() + ": " + e.msg
}

// within returns err, raised at member or index token of a value, as
// raised at that value.
func within(err error, token string) error {
	if ae, ok := err.(*assignError); ok { //nolint:errorlint // only assignJSON's own errors, never wrapped
		ae.path = append(ae.path, token)
	}
	return err
}

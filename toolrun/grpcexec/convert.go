package grpcexec

import (
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/metatools-go/metatools/errors"
)

// newRequest returns the request message of type md holding args, decoded
// as protojson decodes JSON: field names in their proto or JSON form,
// 64-bit integers as numbers or strings, enums by name or number, bytes
// in base64, well-known types in their JSON forms. Arguments that do not
// fit the message are an [errors.InvalidArgument].
func newRequest(md protoreflect.MessageDescriptor, args map[string]any, types typeResolver) (*dynamicpb.Message, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "encode arguments: %w", err)
	}
	msg := dynamicpb.NewMessage(md)
	if err := (protojson.UnmarshalOptions{Resolver: types}).Unmarshal(raw, msg); err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "arguments do not fit %s: %w", md.FullName(), err)
	}
	return msg, nil
}

// marshalOptions say how results read: field names as in the .proto file
// (the names of the tools' schemas), and every field without presence
// present even at its default value (0, "", false, [], {}), so a result
// always has the same keys; unset message fields are left out rather
// than null. The resolver is set per call.
var marshalOptions = protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}

// toJSON returns msg as a decoded JSON value (map[string]any for most
// messages, another JSON value for the well-known types that map to one).
func toJSON(msg proto.Message, types typeResolver) (any, error) {
	opts := marshalOptions
	opts.Resolver = types
	raw, err := opts.Marshal(msg)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "encode %s as JSON: %w", msg.ProtoReflect().Descriptor().FullName(), err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errors.Errorf(errors.Internal, "decode %s JSON: %w", msg.ProtoReflect().Descriptor().FullName(), err)
	}
	return v, nil
}

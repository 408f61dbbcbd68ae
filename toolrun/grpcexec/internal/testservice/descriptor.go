// Package testservice serves, on a loopback port, a gRPC service whose
// descriptor is built in Go (no protoc, no generated code) together with
// the health service of grpc-go and server reflection. The grpcexec tests
// and examples call it.
package testservice

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	// The well-known types the test file imports must be in the global
	// registry.
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// Names of the test file, package and service.
const (
	FileName    = "metatools/test/v1/test.proto"
	Package     = "metatools.test.v1"
	ServiceName = Package + ".EchoService"
)

// Method returns the full method name of a method of the test service.
func Method(name string) string { return "/" + ServiceName + "/" + name }

type fieldType = descriptorpb.FieldDescriptorProto_Type

const (
	tString   = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tInt32    = descriptorpb.FieldDescriptorProto_TYPE_INT32
	tInt64    = descriptorpb.FieldDescriptorProto_TYPE_INT64
	tUint64   = descriptorpb.FieldDescriptorProto_TYPE_UINT64
	tDouble   = descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
	tFloat    = descriptorpb.FieldDescriptorProto_TYPE_FLOAT
	tBool     = descriptorpb.FieldDescriptorProto_TYPE_BOOL
	tBytes    = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tEnum     = descriptorpb.FieldDescriptorProto_TYPE_ENUM
	tMessage  = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	lOptional = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	lRepeated = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
)

// field returns a singular field; typeName is the full name of a message
// or enum type, without the leading dot.
func field(name string, number int32, typ fieldType, typeName string) *descriptorpb.FieldDescriptorProto {
	f := &descriptorpb.FieldDescriptorProto{
		Name:   proto.String(name),
		Number: proto.Int32(number),
		Type:   typ.Enum(),
		Label:  lOptional.Enum(),
	}
	if typeName != "" {
		f.TypeName = proto.String("." + typeName)
	}
	return f
}

func repeated(f *descriptorpb.FieldDescriptorProto) *descriptorpb.FieldDescriptorProto {
	f.Label = lRepeated.Enum()
	return f
}

func inOneof(f *descriptorpb.FieldDescriptorProto, index int32) *descriptorpb.FieldDescriptorProto {
	f.OneofIndex = proto.Int32(index)
	return f
}

// mapEntry returns the synthetic entry message of a map field.
func mapEntry(name string, key, value *descriptorpb.FieldDescriptorProto) *descriptorpb.DescriptorProto {
	return &descriptorpb.DescriptorProto{
		Name:    proto.String(name),
		Field:   []*descriptorpb.FieldDescriptorProto{key, value},
		Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
	}
}

func method(name, in, out string, clientStreams, serverStreams bool) *descriptorpb.MethodDescriptorProto {
	return &descriptorpb.MethodDescriptorProto{
		Name:            proto.String(name),
		InputType:       proto.String("." + in),
		OutputType:      proto.String("." + out),
		ClientStreaming: proto.Bool(clientStreams),
		ServerStreaming: proto.Bool(serverStreams),
	}
}

// idempotency sets a method's idempotency_level option.
func idempotency(m *descriptorpb.MethodDescriptorProto, level descriptorpb.MethodOptions_IdempotencyLevel) *descriptorpb.MethodDescriptorProto {
	m.Options = &descriptorpb.MethodOptions{IdempotencyLevel: level.Enum()}
	return m
}

func comment(text string, path ...int32) *descriptorpb.SourceCodeInfo_Location {
	return &descriptorpb.SourceCodeInfo_Location{Path: path, Span: []int32{0, 0, 1}, LeadingComments: proto.String(text)}
}

const (
	wktEmpty     = "google.protobuf.Empty"
	wktStruct    = "google.protobuf.Struct"
	wktTimestamp = "google.protobuf.Timestamp"
	wktDuration  = "google.protobuf.Duration"
)

// fileProto returns the test file. Version 2 adds a field to Sample and a
// method to the service, as a redeployed server would.
func fileProto(version int) *descriptorpb.FileDescriptorProto {
	p := func(name string) string { return Package + "." + name }
	sample := &descriptorpb.DescriptorProto{
		Name: proto.String("Sample"),
		Field: []*descriptorpb.FieldDescriptorProto{
			field("text", 1, tString, ""),
			field("n32", 2, tInt32, ""),
			field("n64", 3, tInt64, ""),
			field("u64", 4, tUint64, ""),
			field("ratio", 5, tDouble, ""),
			field("f", 6, tFloat, ""),
			field("flag", 7, tBool, ""),
			field("data", 8, tBytes, ""),
			field("color", 9, tEnum, p("Color")),
			repeated(field("tags", 10, tString, "")),
			repeated(field("counts", 11, tMessage, p("Sample.CountsEntry"))),
			field("inner", 12, tMessage, p("Inner")),
			repeated(field("inners", 13, tMessage, p("Inner"))),
			field("at", 14, tMessage, wktTimestamp),
			field("wait", 15, tMessage, wktDuration),
			field("extra", 16, tMessage, wktStruct),
			field("value", 17, tMessage, "google.protobuf.Value"),
			field("nickname", 18, tMessage, "google.protobuf.StringValue"),
			field("big", 19, tMessage, "google.protobuf.Int64Value"),
			inOneof(field("name", 20, tString, ""), 0),
			inOneof(field("id", 21, tInt32, ""), 0),
			inOneof(field("note", 22, tString, ""), 1),
			field("tree", 23, tMessage, p("Node")),
			repeated(field("by_id", 24, tMessage, p("Sample.ByIdEntry"))),
			field("detail", 25, tMessage, "google.protobuf.Any"),
		},
		NestedType: []*descriptorpb.DescriptorProto{
			mapEntry("CountsEntry", field("key", 1, tString, ""), field("value", 2, tInt64, "")),
			mapEntry("ByIdEntry", field("key", 1, tInt32, ""), field("value", 2, tMessage, p("Inner"))),
		},
		OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice")}, {Name: proto.String("_note")}},
	}
	sample.Field[21].Proto3Optional = proto.Bool(true)
	if version >= 2 {
		sample.Field = append(sample.Field, field("added", 30, tString, ""))
	}
	service := &descriptorpb.ServiceDescriptorProto{
		Name: proto.String("EchoService"),
		Method: []*descriptorpb.MethodDescriptorProto{
			method("Echo", p("Sample"), p("Sample"), false, false),
			method("EchoStruct", wktStruct, wktStruct, false, false),
			method("Fail", wktEmpty, wktEmpty, false, false),
			method("Status", p("StatusRequest"), wktEmpty, false, false),
			method("Block", wktEmpty, wktEmpty, false, false),
			method("Count", p("CountRequest"), p("CountReply"), false, true),
			idempotency(method("Headers", wktEmpty, wktStruct, false, false), descriptorpb.MethodOptions_IDEMPOTENT),
			idempotency(method("Now", wktEmpty, wktTimestamp, false, false), descriptorpb.MethodOptions_NO_SIDE_EFFECTS),
			method("SetName", "google.protobuf.StringValue", wktEmpty, false, false),
			method("Upload", p("Sample"), p("Sample"), true, false),
			method("Chat", p("Sample"), p("Sample"), true, true),
		},
	}
	if version >= 2 {
		service.Method = append(service.Method, method("Ping", wktEmpty, wktEmpty, false, false))
	}
	return &descriptorpb.FileDescriptorProto{
		Name:    proto.String(FileName),
		Package: proto.String(Package),
		Syntax:  proto.String("proto3"),
		Dependency: []string{
			"google/protobuf/any.proto",
			"google/protobuf/duration.proto",
			"google/protobuf/empty.proto",
			"google/protobuf/struct.proto",
			"google/protobuf/timestamp.proto",
			"google/protobuf/wrappers.proto",
		},
		EnumType: []*descriptorpb.EnumDescriptorProto{{
			Name: proto.String("Color"),
			Value: []*descriptorpb.EnumValueDescriptorProto{
				{Name: proto.String("COLOR_UNSPECIFIED"), Number: proto.Int32(0)},
				{Name: proto.String("RED"), Number: proto.Int32(1)},
				{Name: proto.String("GREEN"), Number: proto.Int32(2)},
			},
		}},
		MessageType: []*descriptorpb.DescriptorProto{
			sample,
			{Name: proto.String("Inner"), Field: []*descriptorpb.FieldDescriptorProto{
				field("key", 1, tString, ""),
				repeated(field("values", 2, tString, "")),
			}},
			{Name: proto.String("Node"), Field: []*descriptorpb.FieldDescriptorProto{
				field("name", 1, tString, ""),
				repeated(field("children", 2, tMessage, p("Node"))),
			}},
			{Name: proto.String("CountRequest"), Field: []*descriptorpb.FieldDescriptorProto{
				field("n", 1, tInt32, ""),
				field("prefix", 2, tString, ""),
			}},
			{Name: proto.String("CountReply"), Field: []*descriptorpb.FieldDescriptorProto{
				field("index", 1, tInt32, ""),
				field("text", 2, tString, ""),
			}},
			{Name: proto.String("StatusRequest"), Field: []*descriptorpb.FieldDescriptorProto{
				field("code", 1, tInt32, ""),
				field("message", 2, tString, ""),
				field("retry_after", 3, tMessage, wktDuration),
			}},
		},
		Service: []*descriptorpb.ServiceDescriptorProto{service},
		SourceCodeInfo: &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{
			// Paths: 4 = message_type, 2 = field, 6 = service, 2 = method.
			comment(" Sample carries one field of each kind.\n", 4, 0),
			comment(" Free text.\n", 4, 0, 2, 0),
			comment(" A color, by name.\n", 4, 0, 2, 8),
			comment(" EchoService answers with what it is given.\n", 6, 0),
			comment(" Echo returns its request unchanged.\n", 6, 0, 2, 0),
			comment(" Count streams n replies.\n", 6, 0, 2, 5),
		}},
	}
}

// File returns the descriptor of the test file in the given version (1 or
// 2). It panics if the descriptor is malformed, which would be a bug of
// this package.
func File(version int) protoreflect.FileDescriptor {
	fd, err := protodesc.NewFile(fileProto(version), protoregistry.GlobalFiles)
	if err != nil {
		panic(fmt.Sprintf("testservice: build descriptor: %v", err))
	}
	return fd
}

// FileProto returns the test file, version 1, as a FileDescriptorProto.
func FileProto() *descriptorpb.FileDescriptorProto { return fileProto(1) }

package grpcexec

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// testTypes returns the test file's Sample message and the types to
// convert it with.
func testTypes(tb testing.TB) (protoreflect.MessageDescriptor, typeResolver) {
	tb.Helper()
	fd := testservice.File(1)
	files := new(protoregistry.Files)
	require.NoError(tb, files.RegisterFile(fd))
	return fd.Messages().ByName("Sample"), typeResolver{dynamicpb.NewTypes(files)}
}

func TestDefaultToolName(t *testing.T) {
	tests := []struct{ service, method, want string }{
		{"grpc.health.v1.Health", "Check", "health_check"},
		{"shop.v1.OrderService", "GetHTTPStatus", "order_service_get_http_status"},
		{"Greeter", "SayHello", "greeter_say_hello"},
		{"a.b.HTTPServer", "ListV2Items", "http_server_list_v2_items"},
		{"pkg.snake_service", "do_it", "snake_service_do_it"},
		{"pkg.Weird__Name", "__X__", "weird_name_x"},
		{"pkg.Émoji", "Go", "moji_go"},
		{"", "Check", "check"},
		{"pkg.Service", "", "service"},
		{"...", "---", ""},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+tt.method, func(t *testing.T) {
			assert.Equal(t, tt.want, DefaultToolName(tt.service, tt.method))
		})
	}
	t.Run("long names are cut", func(t *testing.T) {
		long := make([]byte, 300)
		for i := range long {
			long[i] = 'a'
		}
		name := DefaultToolName("pkg.S", string(long))
		assert.Len(t, name, toolmodel.MaxNameLen)
		assert.NoError(t, toolmodel.ValidateName(name))
	})
}

func TestFileSet(t *testing.T) {
	marshal := func(fdp *descriptorpb.FileDescriptorProto) []byte {
		raw, err := proto.Marshal(fdp)
		require.NoError(t, err)
		return raw
	}
	file := func(name, pkg string, deps ...string) *descriptorpb.FileDescriptorProto {
		return &descriptorpb.FileDescriptorProto{
			Name: proto.String(name), Package: proto.String(pkg), Syntax: proto.String("proto3"), Dependency: deps,
			MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}},
		}
	}

	t.Run("well-known dependencies come from the program", func(t *testing.T) {
		fs := newFileSet()
		require.NoError(t, fs.add([][]byte{marshal(testservice.FileProto())}))
		assert.Empty(t, fs.missing())
		res, err := fs.service(testservice.ServiceName)
		require.NoError(t, err)
		at := res.service.Methods().ByName("Echo").Input().Fields().ByName("at").Message()
		global, err := protoregistry.GlobalFiles.FindDescriptorByName("google.protobuf.Timestamp")
		require.NoError(t, err)
		assert.Same(t, global, at, "the program's Timestamp, not a copy")
	})
	t.Run("a server's copy of a well-known file is ignored", func(t *testing.T) {
		fs := newFileSet()
		impostor := file("google/protobuf/timestamp.proto", "google.protobuf")
		impostor.MessageType[0].Name = proto.String("Timestamp")
		require.NoError(t, fs.add([][]byte{marshal(impostor)}))
		assert.Empty(t, fs.protos)
	})
	tests := []struct {
		name    string
		files   []*descriptorpb.FileDescriptorProto
		code    errors.Code
		mention string
	}{
		{"missing dependency", []*descriptorpb.FileDescriptorProto{file("a.proto", "a", "b.proto")}, errors.NotFound, `"b.proto"`},
		{"import cycle", []*descriptorpb.FileDescriptorProto{file("a.proto", "a", "b.proto"), file("b.proto", "b", "a.proto")}, errors.Internal, "imports itself"},
		{"invalid file", []*descriptorpb.FileDescriptorProto{{Name: proto.String("a.proto"), Syntax: proto.String("proto9")}}, errors.Internal, "a.proto"},
		{"well-known name in another file", []*descriptorpb.FileDescriptorProto{func() *descriptorpb.FileDescriptorProto {
			f := file("evil.proto", "google")
			f.MessageType[0].Name = proto.String("protobuf")
			f.MessageType[0].NestedType = []*descriptorpb.DescriptorProto{{Name: proto.String("Int64Value")}}
			return f
		}()}, errors.Internal, "google.protobuf.Int64Value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFileSet()
			for _, f := range tt.files {
				require.NoError(t, fs.add([][]byte{marshal(f)}))
			}
			err := fs.buildAll()
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err))
			assert.ErrorContains(t, err, tt.mention)
		})
	}
	t.Run("bytes that are not a descriptor", func(t *testing.T) {
		err := newFileSet().add([][]byte{{0xff, 0xff}})
		require.Error(t, err)
		assert.Equal(t, errors.Internal, errors.CodeOf(err))
	})
	t.Run("a symbol that is not a service", func(t *testing.T) {
		fs := newFileSet()
		require.NoError(t, fs.add([][]byte{marshal(file("a.proto", "a"))}))
		_, err := fs.service("a.M")
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	})
}

func TestToolFailureDetails(t *testing.T) {
	known, err := anypb.New(durationpb.New(0))
	require.NoError(t, err)
	p := status.New(codes.NotFound, "gone").Proto()
	p.Details = []*anypb.Any{known, {TypeUrl: "type.googleapis.com/x.Unknown", Value: []byte{1}}}
	out := toolFailure(status.FromProto(p))
	assert.True(t, out.IsError)
	assert.Equal(t, map[string]any{
		"code":    "NOT_FOUND",
		"message": "gone",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.protobuf.Duration", "value": "0s"},
			map[string]any{"@type": "type.googleapis.com/x.Unknown"},
		},
	}, out.Structured)
	assert.Equal(t, "NOT_FOUND: gone", toolrun.OutputText(out))
}

// chain returns a file of n messages, each holding the next twice (as a
// field and in a list), the shape that blows up a schema that inlines
// every reference.
func chain(t testing.TB, n int) protoreflect.MessageDescriptor {
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("chain.proto"), Package: proto.String("c"), Syntax: proto.String("proto3")}
	for i := range n {
		msg := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
		if i+1 < n {
			next := fmt.Sprintf(".c.M%d", i+1)
			msg.Field = []*descriptorpb.FieldDescriptorProto{
				{Name: proto.String("one"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(next), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()},
				{Name: proto.String("many"), Number: proto.Int32(2), Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(next), Label: descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()},
			}
		}
		fdp.MessageType = append(fdp.MessageType, msg)
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	require.NoError(t, err)
	return fd.Messages().Get(0)
}

func TestSchemaSizeIsLinear(t *testing.T) {
	raw, err := json.Marshal(messageSchema(chain(t, 40), inputMode))
	require.NoError(t, err)
	// Each of the 39 shared messages is defined once.
	assert.Less(t, len(raw), 40*400)
	var s map[string]any
	require.NoError(t, json.Unmarshal(raw, &s))
	assert.Len(t, s["$defs"], 39)
	assert.NoError(t, toolmodel.NewValidator().Validate(raw, map[string]any{"one": map[string]any{"many": []any{map[string]any{}}}}))
}

func TestDeepMessagesMoveToDefs(t *testing.T) {
	// A chain of messages each referenced once, deeper than
	// maxInlineDepth.
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("deep.proto"), Package: proto.String("d"), Syntax: proto.String("proto3")}
	const n = 2*maxInlineDepth + 3
	for i := range n {
		msg := &descriptorpb.DescriptorProto{Name: proto.String(fmt.Sprintf("M%d", i))}
		if i+1 < n {
			msg.Field = []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("next"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(fmt.Sprintf(".d.M%d", i+1)),
			}}
		}
		fdp.MessageType = append(fdp.MessageType, msg)
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	require.NoError(t, err)
	s := messageSchema(fd.Messages().Get(0), outputMode)
	defs := s["$defs"].(map[string]any)
	assert.Len(t, defs, 2, "one definition per maxInlineDepth levels")
	depth := 0
	for node := s; node != nil; depth++ {
		next, _ := node["properties"].(map[string]any)["next"].(map[string]any)
		if next == nil || next["$ref"] != nil {
			break
		}
		node = next
	}
	assert.Equal(t, maxInlineDepth, depth)
}

func TestJSONIsObject(t *testing.T) {
	for name, want := range map[protoreflect.FullName]bool{
		"google.protobuf.Struct": true, "google.protobuf.Any": true, "google.protobuf.Empty": true,
		"google.protobuf.Timestamp": false, "google.protobuf.Value": false, "google.protobuf.ListValue": false,
		"google.protobuf.StringValue": false, "google.protobuf.FieldMask": false,
	} {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		require.NoError(t, err)
		assert.Equal(t, want, jsonIsObject(d.(protoreflect.MessageDescriptor)), string(name))
	}
	sample, _ := testTypes(t)
	assert.True(t, jsonIsObject(sample))
}

// pastDeadline is a context whose deadline has passed but whose timer
// has not fired yet: the moment a server's answer can arrive in.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestAnswerAfterTheDeadlineIsATimeout(t *testing.T) {
	// A server whose own deadline fires first may answer CANCELLED.
	_, err := invocation{e: &Executor{}}.failed(pastDeadline{context.Background()}, status.Error(codes.Canceled, "Stream has ended."))
	require.Error(t, err)
	assert.Equal(t, errors.Timeout, errors.CodeOf(err))
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

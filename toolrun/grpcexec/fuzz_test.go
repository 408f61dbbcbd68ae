package grpcexec

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// FuzzRequest turns arbitrary JSON objects into Sample requests: the
// conversion never panics, refuses what does not fit with
// invalid_argument, and what it accepts survives a round trip through the
// result's JSON form.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"text":"hi","n32":-5,"n64":"9007199254740993","u64":18446744073709551615,"ratio":"NaN","f":1e39,"flag":true}`,
		`{"data":"aGk=","color":"GREEN","tags":["a"],"counts":{"x":"3"},"byId":{"-1":{"key":"k"}}}`,
		`{"at":"2024-01-02T03:04:05.123Z","wait":"-1.5s","extra":{"a":[1,null,{"b":true}]},"value":null,"nickname":"n","big":"1"}`,
		`{"name":"x","id":1}`,
		`{"note":null,"tree":{"children":[{"children":[{"name":"z"}]}]}}`,
		`{"detail":{"@type":"type.googleapis.com/metatools.test.v1.Sample","text":"inner"}}`,
		`{"detail":{"@type":"type.googleapis.com/google.protobuf.Struct","value":{"k":1}}}`,
	} {
		f.Add(seed)
	}
	sample, types := testTypes(f)
	f.Fuzz(func(t *testing.T, text string) {
		var args map[string]any
		if json.Unmarshal([]byte(text), &args) != nil {
			return
		}
		msg, err := newRequest(sample, args, types)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
			return
		}
		first, err := toJSON(msg, types)
		require.NoError(t, err)
		again, err := newRequest(sample, first.(map[string]any), types)
		require.NoError(t, err, "result %v", first)
		second, err := toJSON(again, types)
		require.NoError(t, err)
		assert.Equal(t, first, second)
	})
}

// FuzzFileSchema decodes arbitrary bytes as a file descriptor sent by a
// server, as reflection does, and derives the schemas of every message of
// the files that build: nothing panics, every schema is usable by the
// validator, and an empty request of every message converts.
func FuzzFileSchema(f *testing.F) {
	seed, err := proto.Marshal(testservice.FileProto())
	require.NoError(f, err)
	f.Add(seed)
	small, err := proto.Marshal(&descriptorpb.FileDescriptorProto{
		Name: proto.String("r.proto"), Package: proto.String("r"), Syntax: proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("R"),
			Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("r"), Number: proto.Int32(1), TypeName: proto.String(".r.R"),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), Label: descriptorpb.FieldDescriptorProto_LABEL_REQUIRED.Enum(),
			}},
		}},
	})
	require.NoError(f, err)
	f.Add(small)
	validator := toolmodel.NewValidator(toolmodel.WithCacheSize(64))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := newFileSet()
		if fs.add([][]byte{data}) != nil || fs.buildAll() != nil {
			return
		}
		types := typeResolver{dynamicpb.NewTypes(fs.files)}
		var check func(mds protoreflect.MessageDescriptors)
		check = func(mds protoreflect.MessageDescriptors) {
			for i := range mds.Len() {
				md := mds.Get(i)
				for _, mode := range []schemaMode{inputMode, outputMode} {
					raw, err := json.Marshal(messageSchema(md, mode))
					require.NoError(t, err)
					err = validator.Validate(json.RawMessage(raw), map[string]any{})
					assert.NotEqual(t, errors.InvalidArgument, errors.CodeOf(err), "schema %s: %v", raw, err)
				}
				msg, err := newRequest(md, nil, types)
				if md.RequiredNumbers().Len() > 0 {
					assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
				} else {
					require.NoError(t, err)
					_, err = toJSON(msg, types)
					require.NoError(t, err)
				}
				check(md.Messages())
			}
		}
		for _, fdp := range fs.protos {
			fd, err := fs.files.FindFileByPath(fdp.GetName())
			require.NoError(t, err)
			check(fd.Messages())
		}
	})
}

// FuzzDefaultToolName checks that generated names are valid tool names.
func FuzzDefaultToolName(f *testing.F) {
	f.Add("grpc.health.v1.Health", "Check")
	f.Add("a.HTTPServer", "ListV2Items")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, service, method string) {
		name := DefaultToolName(service, method)
		if name != "" {
			assert.NoError(t, toolmodel.ValidateName(name))
		}
	})
}

// FuzzImportDescriptor imports the services of arbitrary bytes decoded as
// a file descriptor sent by a server, as Import does after reflection:
// nothing panics, a failure is a coded error, and every method that can
// be a tool becomes a registration that an index accepts, bound to its
// method.
func FuzzImportDescriptor(f *testing.F) {
	seed, err := proto.Marshal(testservice.FileProto())
	require.NoError(f, err)
	f.Add(seed)
	small, err := proto.Marshal(&descriptorpb.FileDescriptorProto{
		Name: proto.String("s.proto"), Package: proto.String("s.v1"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M")}},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Svc"),
			Method: []*descriptorpb.MethodDescriptorProto{
				{Name: proto.String("Get"), InputType: proto.String(".s.v1.M"), OutputType: proto.String(".s.v1.M")},
				{Name: proto.String("Watch"), InputType: proto.String(".s.v1.M"), OutputType: proto.String(".s.v1.M"), ServerStreaming: proto.Bool(true)},
				{Name: proto.String("Upload"), InputType: proto.String(".s.v1.M"), OutputType: proto.String(".s.v1.M"), ClientStreaming: proto.Bool(true)},
				{Name: proto.String("Wrap"), InputType: proto.String(".google.protobuf.StringValue"), OutputType: proto.String(".google.protobuf.Empty")},
			},
		}},
		Dependency: []string{"google/protobuf/wrappers.proto", "google/protobuf/empty.proto"},
	})
	require.NoError(f, err)
	f.Add(small)
	spec := ImportSpec{Address: "localhost:1", Namespace: "fuzz", Metadata: map[string]string{"k": "v"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := newFileSet()
		if fs.add([][]byte{data}) != nil || fs.buildAll() != nil {
			return
		}
		index := toolindex.New()
		for _, fdp := range fs.protos {
			for _, sdp := range fdp.GetService() {
				name := sdp.GetName()
				if fdp.GetPackage() != "" {
					name = fdp.GetPackage() + "." + name
				}
				res, err := fs.service(name)
				require.NoError(t, err, "service %s of a file that builds", name)
				methods := res.service.Methods()
				for i := range methods.Len() {
					md := methods.Get(i)
					if unfit(md) != "" {
						continue
					}
					toolName := DefaultToolName(string(res.service.FullName()), string(md.Name()))
					if toolmodel.ValidateName(toolName) != nil {
						continue
					}
					reg, err := registration(spec, toolName, md)
					if err != nil {
						var coded *errors.Error
						require.ErrorAs(t, err, &coded)
						continue
					}
					assert.Equal(t, "/"+string(res.service.FullName())+"/"+string(md.Name()), reg.Backend.GRPC.Method)
					if err := index.Register(context.Background(), reg); err != nil {
						// Two methods may make the same tool name.
						require.Equal(t, errors.Conflict, errors.CodeOf(err), "%v", err)
					}
				}
			}
		}
	})
}

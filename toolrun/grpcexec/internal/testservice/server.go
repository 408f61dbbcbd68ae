package testservice

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/metatools-go/metatools/errors"
)

// Reflection says which versions of the reflection service a server offers.
type Reflection int

// The reflection offerings.
const (
	// ReflectionBoth serves v1 and v1alpha, as reflection.Register does.
	ReflectionBoth Reflection = iota
	// ReflectionV1Alpha serves only v1alpha, like older servers.
	ReflectionV1Alpha
	// ReflectionV1 serves only v1.
	ReflectionV1
	// ReflectionNone serves no reflection.
	ReflectionNone
)

// Options configure a test server.
type Options struct {
	// Address to listen on; 127.0.0.1:0 when empty.
	Address string
	// TLS, when set, makes the server speak TLS.
	TLS *tls.Config
	// Version of the test file served: 1 (the default) or 2.
	Version int
	// Reflection says which reflection versions to serve.
	Reflection Reflection
}

// Server is a running test server.
type Server struct {
	// Addr is the address it listens on.
	Addr string
	// Health is its health service, whose statuses tests may change.
	Health *health.Server

	srv         *grpc.Server
	reflections atomic.Int64
	done        chan struct{}
}

// Now is the time the Now method returns.
var Now = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// Start starts a server and stops it when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// New starts a server; the caller stops it.
func New(opts Options) (*Server, error) {
	addr := opts.Address
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("testservice: listen: %w", err)
	}
	s := &Server{Addr: lis.Addr().String(), Health: health.NewServer(), done: make(chan struct{})}
	serverOpts := []grpc.ServerOption{grpc.ChainStreamInterceptor(s.countReflection)}
	if opts.TLS != nil {
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	s.srv = grpc.NewServer(serverOpts...)
	healthgrpc.RegisterHealthServer(s.srv, s.Health)

	version := max(opts.Version, 1)
	fd := File(version)
	s.srv.RegisterService(serviceDesc(fd.Services().Get(0)), nil)

	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		_ = lis.Close()
		return nil, fmt.Errorf("testservice: register file: %w", err)
	}
	reflOpts := reflection.ServerOptions{Services: s.srv, DescriptorResolver: chainResolver{files, protoregistry.GlobalFiles}}
	switch opts.Reflection {
	case ReflectionBoth:
		reflectionv1.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(reflOpts))
		reflectionv1alpha.RegisterServerReflectionServer(s.srv, reflection.NewServer(reflOpts))
	case ReflectionV1Alpha:
		reflectionv1alpha.RegisterServerReflectionServer(s.srv, reflection.NewServer(reflOpts))
	case ReflectionV1:
		reflectionv1.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(reflOpts))
	case ReflectionNone:
	}

	go func() {
		defer close(s.done)
		_ = s.srv.Serve(lis)
	}()
	return s, nil
}

// Stop stops the server and waits for it to end; calling it again is
// harmless.
func (s *Server) Stop() {
	s.Health.Shutdown()
	s.srv.Stop()
	<-s.done
}

// ReflectionCalls returns how many reflection streams the server has
// seen.
func (s *Server) ReflectionCalls() int64 { return s.reflections.Load() }

func (s *Server) countReflection(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasSuffix(info.FullMethod, "/ServerReflectionInfo") {
		s.reflections.Add(1)
	}
	return handler(srv, ss)
}

// chainResolver finds descriptors in the test files, then in the global
// registry (health, reflection and the well-known types).
type chainResolver struct {
	local, global *protoregistry.Files
}

func (r chainResolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.local.FindFileByPath(path); err == nil {
		return fd, nil
	}
	return r.global.FindFileByPath(path)
}

func (r chainResolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.local.FindDescriptorByName(name); err == nil {
		return d, nil
	}
	return r.global.FindDescriptorByName(name)
}

// unaryFunc serves a unary method with dynamic messages.
type unaryFunc func(ctx context.Context, req *dynamicpb.Message) (proto.Message, error)

// serviceDesc returns the grpc.ServiceDesc serving sd with dynamic
// messages: any unary method without a handler of its own echoes its
// request.
func serviceDesc(sd protoreflect.ServiceDescriptor) *grpc.ServiceDesc {
	desc := &grpc.ServiceDesc{
		ServiceName: string(sd.FullName()),
		// Any handler value will do: the methods ignore it.
		HandlerType: (*any)(nil),
		Metadata:    FileName,
	}
	unary := map[string]unaryFunc{
		"Fail":    func(context.Context, *dynamicpb.Message) (proto.Message, error) { return nil, errors.New("boom") },
		"Status":  statusReply,
		"Block":   block,
		"Headers": headers,
		"Now": func(context.Context, *dynamicpb.Message) (proto.Message, error) {
			return timestamppb.New(Now), nil
		},
	}
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		name := string(md.Name())
		switch {
		case md.IsStreamingServer() && !md.IsStreamingClient():
			desc.Streams = append(desc.Streams, grpc.StreamDesc{StreamName: name, ServerStreams: true, Handler: count(md)})
		case md.IsStreamingClient():
			desc.Streams = append(desc.Streams, grpc.StreamDesc{
				StreamName: name, ServerStreams: md.IsStreamingServer(), ClientStreams: true,
				Handler: func(any, grpc.ServerStream) error { return status.Error(codes.Unimplemented, "not served") },
			})
		default:
			fn, ok := unary[name]
			if !ok {
				fn = func(_ context.Context, req *dynamicpb.Message) (proto.Message, error) { return req, nil }
			}
			desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: name, Handler: unaryHandler(md, fn)})
		}
	}
	return desc
}

func unaryHandler(md protoreflect.MethodDescriptor, fn unaryFunc) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	full := "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		req := dynamicpb.NewMessage(md.Input())
		if err := dec(req); err != nil {
			return nil, err
		}
		if interceptor == nil {
			return fn(ctx, req)
		}
		return interceptor(ctx, req, &grpc.UnaryServerInfo{Server: srv, FullMethod: full}, func(ctx context.Context, r any) (any, error) {
			return fn(ctx, r.(*dynamicpb.Message))
		})
	}
}

// statusReply answers with the status the request asks for, with a
// RetryInfo detail when it gives retry_after.
func statusReply(_ context.Context, req *dynamicpb.Message) (proto.Message, error) {
	fields := req.Descriptor().Fields()
	code := codes.Code(req.Get(fields.ByName("code")).Int())
	st := status.New(code, req.Get(fields.ByName("message")).String())
	if req.Has(fields.ByName("retry_after")) {
		wait := req.Get(fields.ByName("retry_after")).Message()
		d := wait.Get(wait.Descriptor().Fields().ByName("seconds")).Int()
		withDetail, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(d) * time.Second)})
		if err != nil {
			return nil, err
		}
		st = withDetail
	}
	return nil, st.Err()
}

func block(ctx context.Context, _ *dynamicpb.Message) (proto.Message, error) {
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

// headers answers with the request's metadata, one key per header with
// its values joined by commas.
func headers(ctx context.Context, _ *dynamicpb.Message) (proto.Message, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	fields := map[string]any{}
	for key, values := range md {
		fields[key] = strings.Join(values, ",")
	}
	return structpb.NewStruct(fields)
}

// count streams n CountReply messages, or fails with InvalidArgument when
// n is negative.
func count(md protoreflect.MethodDescriptor) grpc.StreamHandler {
	return func(_ any, stream grpc.ServerStream) error {
		req := dynamicpb.NewMessage(md.Input())
		if err := stream.RecvMsg(req); err != nil {
			return err
		}
		in := md.Input().Fields()
		n := req.Get(in.ByName("n")).Int()
		prefix := req.Get(in.ByName("prefix")).String()
		out := md.Output().Fields()
		for i := range max(n, 0) {
			reply := dynamicpb.NewMessage(md.Output())
			reply.Set(out.ByName("index"), protoreflect.ValueOfInt32(int32(i)))
			reply.Set(out.ByName("text"), protoreflect.ValueOfString(prefix+string(rune('a'+i%26))))
			if err := stream.SendMsg(reply); err != nil {
				return err
			}
		}
		if n < 0 {
			return status.Error(codes.InvalidArgument, "n must not be negative")
		}
		return nil
	}
}

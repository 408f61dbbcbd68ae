package grpcexec

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/metatools-go/metatools/errors"

	// The well-known types, whose files are taken from the program rather
	// than from servers (see ownWellKnown).
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/apipb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/sourcecontextpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/typepb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// The methods of the reflection service. Version v1alpha has the same
// messages as v1, field for field, so this package speaks both with the v1
// types.
const (
	reflectionV1      = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
	reflectionV1Alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
)

// wellKnownPackage is the package of the well-known types.
const wellKnownPackage = "google.protobuf"

// maxFiles bounds how many files one reflection session gathers, against
// a server that keeps naming new dependencies.
const maxFiles = 4096

var reflectionStream = &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}

// session is one reflection stream, on which requests and responses
// alternate. The server does not send a file twice on one stream, so the
// session keeps every file it received. It is not safe for concurrent use.
type session struct {
	c      *conn
	ctx    context.Context
	cancel context.CancelFunc
	stream grpc.ClientStream
	method string
	files  *fileSet
}

func (c *conn) newSession(ctx context.Context) *session {
	ctx, cancel := context.WithCancel(ctx)
	return &session{c: c, ctx: ctx, cancel: cancel, files: newFileSet()}
}

// close ends the stream.
func (s *session) close() { s.cancel() }

// exchange sends req and returns the server's response. The first
// exchange of a session opens the stream: with reflection v1, or first
// with the version that answered last time on this connection, and then
// with the other version if the server does not implement the first.
func (s *session) exchange(req *reflectionpb.ServerReflectionRequest) (*reflectionpb.ServerReflectionResponse, error) {
	if s.stream == nil {
		methods := []string{reflectionV1, reflectionV1Alpha}
		if m := s.c.reflectionMethod.Load(); m != nil && *m == reflectionV1Alpha {
			slices.Reverse(methods)
		}
		var resp *reflectionpb.ServerReflectionResponse
		var err error
		for _, s.method = range methods {
			if resp, err = s.open(req); status.Code(err) != codes.Unimplemented {
				break
			}
		}
		if status.Code(err) == codes.Unimplemented {
			return nil, errors.Errorf(errors.Unsupported, "server does not offer server reflection: %w", err)
		}
		method := s.method
		s.c.reflectionMethod.Store(&method)
		return resp, err
	}
	return s.roundTrip(req)
}

func (s *session) open(req *reflectionpb.ServerReflectionRequest) (*reflectionpb.ServerReflectionResponse, error) {
	stream, err := s.c.cc.NewStream(s.ctx, reflectionStream, s.method)
	if err != nil {
		return nil, err
	}
	s.stream = stream
	return s.roundTrip(req)
}

func (s *session) roundTrip(req *reflectionpb.ServerReflectionRequest) (*reflectionpb.ServerReflectionResponse, error) {
	if err := s.stream.SendMsg(req); err != nil {
		// The stream's status, which says why, comes with RecvMsg.
		if rerr := s.stream.RecvMsg(new(reflectionpb.ServerReflectionResponse)); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	resp := new(reflectionpb.ServerReflectionResponse)
	if err := s.stream.RecvMsg(resp); err != nil {
		return nil, err
	}
	if e := resp.GetErrorResponse(); e != nil {
		return nil, status.Error(codes.Code(e.GetErrorCode()), e.GetErrorMessage())
	}
	return resp, nil
}

// listServices returns the names of the services the server offers.
func (s *session) listServices() ([]string, error) {
	resp, err := s.exchange(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	return names, nil
}

// fetchSymbol gathers the file defining a symbol and the files it
// depends on.
func (s *session) fetchSymbol(name string) error {
	resp, err := s.exchange(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: name},
	})
	if err != nil {
		if status.Code(err) == codes.NotFound {
			return errors.Errorf(errors.NotFound, "server does not know %q: %w", name, err)
		}
		return err
	}
	if err := s.files.add(resp.GetFileDescriptorResponse().GetFileDescriptorProto()); err != nil {
		return err
	}
	return s.fetchDependencies()
}

// fetchDependencies asks the server for the dependencies it has not sent
// (grpc-go sends them all at once, other servers may not). A dependency
// the server does not know may still be in the global registry, such as
// a well-known type; building the files says if it is missing.
func (s *session) fetchDependencies() error {
	asked := map[string]bool{}
	for {
		missing := slices.DeleteFunc(s.files.missing(), func(name string) bool { return asked[name] })
		if len(missing) == 0 {
			return nil
		}
		for _, name := range missing {
			asked[name] = true
			resp, err := s.exchange(&reflectionpb.ServerReflectionRequest{
				MessageRequest: &reflectionpb.ServerReflectionRequest_FileByFilename{FileByFilename: name},
			})
			if status.Code(err) == codes.NotFound {
				continue
			}
			if err != nil {
				return err
			}
			if err := s.files.add(resp.GetFileDescriptorResponse().GetFileDescriptorProto()); err != nil {
				return err
			}
		}
	}
}

// service resolves a service from the files gathered so far, fetching
// them first when needed.
func (s *session) service(name string) (*resolved, error) {
	if _, ok := s.files.symbols[name]; !ok {
		if err := s.fetchSymbol(name); err != nil {
			return nil, err
		}
	}
	return s.files.service(name)
}

// fileSet holds file descriptors received from a server and builds them,
// in dependency order, into a registry of its own.
type fileSet struct {
	protos  map[string]*descriptorpb.FileDescriptorProto
	symbols map[string]bool // the services of the received files
	files   *protoregistry.Files
}

func newFileSet() *fileSet {
	return &fileSet{protos: map[string]*descriptorpb.FileDescriptorProto{}, symbols: map[string]bool{}, files: new(protoregistry.Files)}
}

// add decodes serialized FileDescriptorProtos; a file received before is
// ignored.
func (fs *fileSet) add(raw [][]byte) error {
	for _, b := range raw {
		fdp := new(descriptorpb.FileDescriptorProto)
		if err := proto.Unmarshal(b, fdp); err != nil {
			return errors.Errorf(errors.Internal, "decode a file descriptor from the server: %w", err)
		}
		if _, ok := fs.protos[fdp.GetName()]; ok || ownWellKnown(fdp.GetName()) {
			continue
		}
		if len(fs.protos) >= maxFiles {
			return errors.Errorf(errors.ResourceExhausted, "server sent more than %d files", maxFiles)
		}
		fs.protos[fdp.GetName()] = fdp
		for _, svc := range fdp.GetService() {
			name := svc.GetName()
			if pkg := fdp.GetPackage(); pkg != "" {
				name = pkg + "." + name
			}
			fs.symbols[name] = true
		}
	}
	return nil
}

// ownWellKnown reports whether path is a file of the well-known types that
// this program has: the program's copy is used instead of the server's,
// since protojson gives the well-known types JSON forms that rely on their
// exact shape.
func ownWellKnown(path string) bool {
	fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
	return err == nil && fd.Package() == wellKnownPackage
}

// missing returns the dependencies of the received files that were not
// received, sorted.
func (fs *fileSet) missing() []string {
	var names []string
	for _, fdp := range fs.protos {
		for _, dep := range fdp.GetDependency() {
			if _, ok := fs.protos[dep]; !ok && !ownWellKnown(dep) && !slices.Contains(names, dep) {
				names = append(names, dep)
			}
		}
	}
	slices.Sort(names)
	return names
}

// build builds a received file and, first, its dependencies. A
// dependency that was not received is taken from the global registry
// when it is there.
func (fs *fileSet) build(name string, visiting map[string]bool) error {
	if _, err := fs.files.FindFileByPath(name); err == nil {
		return nil
	}
	fdp, ok := fs.protos[name]
	if !ok {
		if _, err := protoregistry.GlobalFiles.FindFileByPath(name); err == nil {
			return nil
		}
		return errors.Errorf(errors.NotFound, "server did not send file %q", name)
	}
	if visiting[name] {
		return errors.Errorf(errors.Internal, "file %q imports itself", name)
	}
	visiting[name] = true
	for _, dep := range fdp.GetDependency() {
		if err := fs.build(dep, visiting); err != nil {
			return err
		}
	}
	fd, err := protodesc.NewFile(fdp, fileResolver{fs.files})
	if err != nil {
		return errors.Errorf(errors.Internal, "file %q from the server: %w", name, err)
	}
	if d := wellKnownImpostor(fd.Messages()); d != "" {
		return errors.Errorf(errors.Internal, "file %q from the server defines %s, a name reserved to the well-known types", name, d)
	}
	if err := fs.files.RegisterFile(fd); err != nil {
		return errors.Errorf(errors.Internal, "file %q from the server: %w", name, err)
	}
	return nil
}

// wellKnownImpostor returns the name of a message among mds, or nested in
// them, that claims a place among the well-known types (whose full names
// protojson special-cases), or "".
func wellKnownImpostor(mds protoreflect.MessageDescriptors) protoreflect.FullName {
	for i := range mds.Len() {
		md := mds.Get(i)
		if md.FullName().Parent() == wellKnownPackage {
			return md.FullName()
		}
		if name := wellKnownImpostor(md.Messages()); name != "" {
			return name
		}
	}
	return ""
}

// buildAll builds every received file.
func (fs *fileSet) buildAll() error {
	names := make([]string, 0, len(fs.protos))
	for name := range fs.protos {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := fs.build(name, map[string]bool{}); err != nil {
			return err
		}
	}
	return nil
}

// service returns a built service with the types of the received files.
// The file set must not change afterwards: the types read it.
func (fs *fileSet) service(name string) (*resolved, error) {
	if err := fs.buildAll(); err != nil {
		return nil, err
	}
	d, err := fs.files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, errors.Errorf(errors.NotFound, "server does not describe %q", name)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, errors.Errorf(errors.InvalidArgument, "%q is not a service", name)
	}
	return &resolved{service: sd, types: typeResolver{dynamicpb.NewTypes(fs.files)}}, nil
}

// fileResolver finds files and descriptors among the files built so far,
// then in the global registry.
type fileResolver struct {
	files *protoregistry.Files
}

func (r fileResolver) FindFileByPath(path string) (protoreflect.FileDescriptor, error) {
	if fd, err := r.files.FindFileByPath(path); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(path)
}

func (r fileResolver) FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := r.files.FindDescriptorByName(name); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(name)
}

// typeResolver finds the message types of google.protobuf.Any values and
// extensions among the server's types, then among the types linked into
// the program.
type typeResolver struct {
	server *dynamicpb.Types
}

func (r typeResolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	if mt, err := r.server.FindMessageByName(name); err == nil {
		return mt, nil
	}
	return protoregistry.GlobalTypes.FindMessageByName(name)
}

func (r typeResolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	if mt, err := r.server.FindMessageByURL(url); err == nil {
		return mt, nil
	}
	return protoregistry.GlobalTypes.FindMessageByURL(url)
}

func (r typeResolver) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	if xt, err := r.server.FindExtensionByName(name); err == nil {
		return xt, nil
	}
	return protoregistry.GlobalTypes.FindExtensionByName(name)
}

func (r typeResolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	if xt, err := r.server.FindExtensionByNumber(message, field); err == nil {
		return xt, nil
	}
	return protoregistry.GlobalTypes.FindExtensionByNumber(message, field)
}

// method returns the descriptor of a method, from the cache when it is
// fresh. A method missing from a cached service makes the service
// resolved again: the server may have changed since.
func (c *conn) method(ctx context.Context, service, method string) (protoreflect.MethodDescriptor, typeResolver, error) {
	for _, fresh := range []bool{false, true} {
		res, cached, err := c.service(ctx, service, fresh)
		if err != nil {
			return nil, typeResolver{}, err
		}
		if md := res.service.Methods().ByName(protoreflect.Name(method)); md != nil {
			return md, res.types, nil
		}
		if !cached {
			break
		}
	}
	return nil, typeResolver{}, errors.Errorf(errors.NotFound, "service %q has no method %q", service, method)
}

// service returns a resolved service and whether it came from the cache.
// Concurrent callers share one resolution; a caller whose resolution
// failed because another caller's context ended tries again with its own.
func (c *conn) service(ctx context.Context, name string, fresh bool) (*resolved, bool, error) {
	for {
		c.mu.Lock()
		if res, ok := c.services[name]; ok && !fresh && res.gen == c.watch.gen.Load() {
			c.mu.Unlock()
			return res, true, nil
		}
		if r, ok := c.inflight[name]; ok {
			c.mu.Unlock()
			select {
			case <-r.done:
			case <-ctx.Done():
				return nil, false, errors.FromContext(ctx, "", nil)
			}
			if r.err == nil {
				return r.res, false, nil
			}
			if code := errors.CodeOf(r.err); (code == errors.Canceled || code == errors.Timeout) && ctx.Err() == nil {
				continue
			}
			return nil, false, r.err
		}
		r := &resolution{done: make(chan struct{})}
		c.inflight[name] = r
		c.mu.Unlock()

		r.res, r.err = c.resolve(ctx, name)
		c.mu.Lock()
		delete(c.inflight, name)
		if r.err == nil {
			c.services[name] = r.res
		}
		c.mu.Unlock()
		close(r.done)
		return r.res, false, r.err
	}
}

// resolve fetches a service's descriptors through reflection. Reflection
// only reads, so a stream that failed as unavailable (typically on a
// transport that closed as the stream started, when the server went
// away) is tried once more, on a new transport.
func (c *conn) resolve(ctx context.Context, name string) (*resolved, error) {
	res, err := c.resolveOnce(ctx, name)
	if status.Code(err) == codes.Unavailable && ctx.Err() == nil {
		res, err = c.resolveOnce(ctx, name)
	}
	if err != nil {
		return nil, reflectionError(ctx, err)
	}
	res.gen = c.watch.gen.Load()
	return res, nil
}

func (c *conn) resolveOnce(ctx context.Context, name string) (*resolved, error) {
	s := c.newSession(ctx)
	defer s.close()
	return s.service(name)
}

// store caches services resolved elsewhere (by an import).
func (c *conn) store(services []*resolved) {
	gen := c.watch.gen.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, res := range services {
		res.gen = gen
		c.services[string(res.service.FullName())] = res
	}
}

// forget drops a service from the cache, after the server said it does
// not implement one of its methods.
func (c *conn) forget(service string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.services, service)
}

// reflectionError classifies an error of the reflection stream.
func reflectionError(ctx context.Context, err error) error {
	if e := errors.FromContext(ctx, "", err); e != nil {
		return e
	}
	var e *errors.Error
	if errors.As(err, &e) {
		return err
	}
	if st, ok := status.FromError(err); ok {
		se := StatusError(st)
		se.Err = fmt.Errorf("server reflection: %w", se.Err)
		return se
	}
	return errors.E(errors.Internal, err)
}

package grpcexec

import (
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// DefaultMaxStreamMessages is how many messages of a server-streaming
// method an [Executor] gathers into one result unless told otherwise with
// [WithMaxStreamMessages].
const DefaultMaxStreamMessages = 10000

// opExecute is the Op of the errors of Execute.
const opExecute = "grpcexec.Execute"

// Executor is the [toolrun.Executor] of [toolmodel.BackendGRPC] backends:
// it calls methods of gRPC services that offer server reflection, with
// JSON arguments turned into dynamic protobuf messages.
//
// It keeps one connection per address and transport security settings,
// created on first use, and the descriptors of the services it called,
// resolved once through server reflection and resolved again when the
// connection reconnects or when a method is missing or unimplemented.
// It is safe for concurrent use; [Executor.Close] closes its connections.
type Executor struct {
	dialOptions []grpc.DialOption
	forward     map[string]bool
	toolErrors  [len(statusCodes)]bool
	maxStream   int
	// tracer, when set, traces the calls ([WithTracerProvider]).
	tracer trace.Tracer

	mu     sync.Mutex
	conns  map[connKey]*conn
	closed bool
}

var (
	_ toolrun.Executor = (*Executor)(nil)
	_ io.Closer        = (*Executor)(nil)
)

// Option configures an [Executor].
type Option func(*Executor)

// WithDialOptions adds options to every connection the executor makes,
// after its own (transport credentials from the backend's TLS settings,
// and a stats handler): keepalive, message size limits, interceptors, a
// custom dialer.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(e *Executor) { e.dialOptions = append(e.dialOptions, opts...) }
}

// WithForwardedMetadata sends the call metadata ([toolrun.Call.Metadata])
// under the given keys as gRPC request headers, after the backend's
// metadata, which they override. No call metadata is sent by default:
// it is free data of the caller's, which a service should not see unless
// the executor is told so. A pre-call hook that injects credentials, for
// instance, sets Metadata["authorization"] and the executor is made with
// WithForwardedMetadata("authorization"). Keys are case-insensitive.
func WithForwardedMetadata(keys ...string) Option {
	return func(e *Executor) {
		for _, k := range keys {
			e.forward[strings.ToLower(k)] = true
		}
	}
}

// WithToolErrorCodes sets the gRPC statuses that are the tool's own
// failures, reported as an [toolrun.Output] with IsError set, replacing
// [DefaultToolErrorCodes]. The other non-OK statuses are errors (see
// [StatusError]). With no code, every status is an error. The context's
// end (CANCELLED, DEADLINE_EXCEEDED once the call's context is done) is
// always an error.
func WithToolErrorCodes(cs ...codes.Code) Option {
	return func(e *Executor) {
		e.toolErrors = [len(statusCodes)]bool{}
		for _, c := range cs {
			if c != codes.OK && int(c) < len(e.toolErrors) {
				e.toolErrors[c] = true
			}
		}
	}
}

// WithMaxStreamMessages bounds how many messages of a server-streaming
// method are gathered into one result when the call has no
// [toolrun.Call.OnChunk]; past n, the call fails with
// [errors.ResourceExhausted]. Calls with OnChunk are not bounded. n < 1
// means [DefaultMaxStreamMessages].
func WithMaxStreamMessages(n int) Option {
	return func(e *Executor) {
		if n < 1 {
			n = DefaultMaxStreamMessages
		}
		e.maxStream = n
	}
}

// New returns an executor without connections.
func New(opts ...Option) *Executor {
	e := &Executor{forward: map[string]bool{}, maxStream: DefaultMaxStreamMessages, conns: map[connKey]*conn{}}
	WithToolErrorCodes(DefaultToolErrorCodes()...)(e)
	for _, opt := range opts {
		opt(e)
	}
	return e
}

// Backend returns the backend that calls a method, given by its full name
// ("/package.Service/Method"), at address (host:port), over TLS with the
// system's roots. Set its GRPC fields for other settings.
func Backend(address, method string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Address: address, Method: method}}
}

// Execute implements [toolrun.Executor]. It calls call.Backend.GRPC's
// method with call.Args as its request, within the backend's Timeout if
// set, with the backend's Metadata (and the forwarded call metadata) as
// headers.
//
// Unary methods return their response as Output.Structured, a JSON
// object in protojson's form with the field names of the .proto file.
// Server-streaming methods pass each message to call.OnChunk when it is
// set (Output.Structured is then nil), and otherwise return them all as
// a JSON array. Client-streaming and bidirectional methods are
// [errors.Unsupported].
//
// A status the executor counts as the tool's failure (see
// [WithToolErrorCodes]) is an Output with IsError set whose text is
// "CODE: message"; other statuses are errors mapped by [StatusError].
// Arguments that do not fit the request message and bad backend settings
// are [errors.InvalidArgument]; a method the server does not describe is
// [errors.NotFound]; a server without reflection is [errors.Unsupported].
//
// A call that failed before its request could reach the server (the
// connection was refused, reflection failed, the arguments did not fit)
// is marked [toolrun.MarkNotSent], so that the runner may retry it
// whatever the method; other failures are retried only for methods
// whose idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT, which
// [Executor.Import] records in the tools' annotations (see
// [toolrun.SafeToRepeat]).
func (e *Executor) Execute(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
	var sending *sendWatch
	if b := call.Backend.GRPC; b != nil {
		ctx, sending = watchSending(ctx, b.Method)
	}
	out, err := e.execute(ctx, call)
	if err == nil {
		return out, nil
	}
	var te *errors.Error
	if !errors.As(err, &te) {
		te = errors.E(errors.Internal, err)
	}
	te = te.With(opExecute, call.ToolID(), call.Backend.Identity())
	if sending == nil || !sending.sent.Load() {
		te = toolrun.MarkNotSent(te)
	}
	return toolrun.Output{}, te
}

func (e *Executor) execute(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
	b := call.Backend.GRPC
	if call.Backend.Kind != toolmodel.BackendGRPC || b == nil {
		return toolrun.Output{}, errors.Errorf(errors.InvalidArgument, "backend %s is not a gRPC backend", call.Backend.Identity())
	}
	service, method, err := splitMethod(b.Method)
	if err != nil {
		return toolrun.Output{}, err
	}
	if b.Timeout < 0 {
		return toolrun.Output{}, errors.Errorf(errors.InvalidArgument, "grpc.timeout is negative")
	}
	c, err := e.connFor(b)
	if err != nil {
		return toolrun.Output{}, err
	}
	if b.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(b.Timeout))
		defer cancel()
	}
	ctx, err = outgoing(ctx, b.Metadata, call.Metadata, e.forward)
	if err != nil {
		return toolrun.Output{}, err
	}
	if ctx.Err() != nil {
		return toolrun.Output{}, errors.FromContext(ctx, "", nil)
	}

	md, types, err := c.method(ctx, service, method)
	if err != nil {
		return toolrun.Output{}, err
	}
	if md.IsStreamingClient() {
		return toolrun.Output{}, errors.Errorf(errors.Unsupported, "method %s streams its requests; only unary and server-streaming methods can be called", b.Method)
	}
	req, err := newRequest(md.Input(), call.Args, types)
	if err != nil {
		return toolrun.Output{}, err
	}
	inv := invocation{e: e, c: c, address: b.Address, method: md, fullMethod: b.Method, types: types}
	if md.IsStreamingServer() {
		return inv.stream(ctx, req, call.OnChunk)
	}
	return inv.unary(ctx, req)
}

// splitMethod splits "/package.Service/Method".
func splitMethod(full string) (service, method string, err error) {
	rest, ok := strings.CutPrefix(full, "/")
	if ok {
		service, method, ok = strings.Cut(rest, "/")
	}
	if !ok || service == "" || method == "" || strings.Contains(method, "/") {
		return "", "", errors.Errorf(errors.InvalidArgument, "grpc.method %q is not of the form /package.Service/Method", full)
	}
	return service, method, nil
}

// invocation is one call of a resolved method.
type invocation struct {
	e          *Executor
	c          *conn
	address    string
	method     protoreflect.MethodDescriptor
	fullMethod string
	types      typeResolver
}

func (inv invocation) unary(ctx context.Context, req *dynamicpb.Message) (toolrun.Output, error) {
	resp := dynamicpb.NewMessage(inv.method.Output())
	callCtx, span := inv.e.startSpan(ctx, inv.address, inv.fullMethod)
	err := inv.c.cc.Invoke(callCtx, inv.fullMethod, req, resp)
	endSpan(span, err)
	if err != nil {
		return inv.failed(ctx, err)
	}
	v, err := toJSON(resp, inv.types)
	if err != nil {
		return toolrun.Output{}, err
	}
	return toolrun.Output{Structured: v}, nil
}

var serverStream = &grpc.StreamDesc{ServerStreams: true}

func (inv invocation) stream(ctx context.Context, req *dynamicpb.Message, onChunk func(any)) (toolrun.Output, error) {
	// Canceling the stream's context is what releases it when the loop
	// stops before the end.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// rpcErr is the error the stream ended with, for its span.
	callCtx, span := inv.e.startSpan(ctx, inv.address, inv.fullMethod)
	var rpcErr error
	defer func() { endSpan(span, rpcErr) }()
	stream, err := inv.c.cc.NewStream(callCtx, serverStream, inv.fullMethod)
	if err != nil {
		rpcErr = err
		return inv.failed(ctx, err)
	}
	if err := stream.SendMsg(req); err != nil && !errors.Is(err, io.EOF) {
		rpcErr = err
		return inv.failed(ctx, err)
	}
	if err := stream.CloseSend(); err != nil {
		rpcErr = err
		return inv.failed(ctx, err)
	}
	gathered := []any{}
	for {
		msg := dynamicpb.NewMessage(inv.method.Output())
		err := stream.RecvMsg(msg)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rpcErr = err
			return inv.failed(ctx, err)
		}
		v, err := toJSON(msg, inv.types)
		if err != nil {
			return toolrun.Output{}, err
		}
		if onChunk != nil {
			onChunk(v)
			continue
		}
		if len(gathered) == inv.e.maxStream {
			return toolrun.Output{}, errors.Errorf(errors.ResourceExhausted,
				"method %s streamed more than %d messages; receive them as chunks instead", inv.fullMethod, inv.e.maxStream)
		}
		gathered = append(gathered, v)
	}
	if onChunk != nil {
		return toolrun.Output{}, nil
	}
	return toolrun.Output{Structured: gathered}, nil
}

// failed turns the error of a call into its outcome: the context's end,
// a tool failure, or an error mapped from the status.
func (inv invocation) failed(ctx context.Context, err error) (toolrun.Output, error) {
	// The deadline counts once it has passed, before ctx's timer has
	// fired: a server derives its deadline from the call's and may answer
	// (often with CANCELLED) first.
	if e := errors.FromContext(ctx, "", err); e != nil {
		return toolrun.Output{}, e
	}
	st := status.Convert(err)
	if st.Code() == codes.Unimplemented {
		// The server changed, or the descriptors were wrong: resolve
		// them again next time.
		inv.c.forget(string(inv.method.Parent().FullName()))
	}
	if inv.e.toolErrors[infoIndex(st.Code())] {
		return toolFailure(st), nil
	}
	return toolrun.Output{}, StatusError(st)
}

// Close closes the executor's connections. Calls in progress fail, and
// later calls fail with [errors.Unavailable]. Calling Close again is
// harmless.
func (e *Executor) Close() error {
	e.mu.Lock()
	conns := e.conns
	e.conns, e.closed = map[connKey]*conn{}, true
	e.mu.Unlock()
	return closeAll(conns)
}

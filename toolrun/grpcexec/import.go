package grpcexec

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// opImport is the Op of the errors of Import.
const opImport = "grpcexec.Import"

// ImportSpec says which methods of a server [Executor.Import] turns into
// tools, and how.
type ImportSpec struct {
	// Address is the server's host:port.
	Address string
	// TLS, Metadata and Timeout become the settings of every imported
	// tool's backend; TLS and Metadata also serve the import's own
	// reflection calls.
	TLS      *toolmodel.GRPCTLS
	Metadata map[string]string
	Timeout  toolmodel.Duration
	// Namespace is the namespace of the tools; it may be empty.
	Namespace string
	// Services are the full names of the services to import
	// ("package.Service"). When empty, every service the server lists is
	// imported except server reflection and health (name them to import
	// them).
	Services []string
	// ToolName names the tool of a method from the service's full name
	// and the method's name; nil means [DefaultToolName]. Names must be
	// valid tool names ([toolmodel.ValidateName]) and distinct.
	ToolName func(service, method string) string
}

// ImportResult is what [Executor.Import] found.
type ImportResult struct {
	// Registrations hold one tool per method, in the order of the services
	// (sorted by name) and of their methods in the .proto file, each with
	// a backend bound to its method.
	Registrations []toolindex.Registration `json:"registrations"`
	// Skipped lists the methods that cannot be tools.
	Skipped []SkippedMethod `json:"skipped,omitempty"`
}

// SkippedMethod is a method [Executor.Import] did not turn into a tool.
type SkippedMethod struct {
	// Method is the method's full name, "/package.Service/Method".
	Method string `json:"method"`
	// Reason says why.
	Reason string `json:"reason"`
}

// Import lists the methods of services of a server through its server
// reflection and returns one tool registration per method. The tools'
// input and output schemas are derived from the request and response
// messages (see the package documentation for the mapping), their
// descriptions from the .proto comments when the server's descriptors
// carry them.
//
// Methods that stream their requests are skipped, and so are methods
// whose request is not a JSON object (a wrapper type, a Timestamp, ...),
// since tool arguments are. Server-streaming methods have no output
// schema, since their result is an array of messages; the schema of one
// message is in the tool's Metadata["grpc"]["messageSchema"].
//
// Import always asks the server afresh, and the descriptors it fetched
// serve the executor's later calls. Errors: [errors.InvalidArgument] for
// a bad spec, [errors.NotFound] for a service the server does not have,
// [errors.Conflict] when two methods get the same tool name, and the
// errors of reflection calls as for [Executor.Execute].
func (e *Executor) Import(ctx context.Context, spec ImportSpec) (*ImportResult, error) {
	result, err := e.importTools(ctx, spec)
	if err != nil {
		var te *errors.Error
		if !errors.As(err, &te) {
			te = errors.E(errors.Internal, err)
		}
		backend := Backend(spec.Address, "")
		return nil, te.With(opImport, "", backend.Identity())
	}
	return result, nil
}

func (e *Executor) importTools(ctx context.Context, spec ImportSpec) (*ImportResult, error) {
	if spec.Address == "" {
		return nil, errors.Errorf(errors.InvalidArgument, "address is missing")
	}
	if spec.Namespace != "" {
		if err := toolmodel.ValidateName(spec.Namespace); err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "namespace %q: %w", spec.Namespace, err)
		}
	}
	if spec.Timeout < 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "timeout is negative")
	}
	c, err := e.connFor(&toolmodel.GRPCBackend{Address: spec.Address, TLS: spec.TLS})
	if err != nil {
		return nil, err
	}
	ctx, err = outgoing(ctx, spec.Metadata, nil, nil)
	if err != nil {
		return nil, err
	}
	services, err := c.importServices(ctx, spec.Services)
	if err != nil {
		return nil, err
	}
	c.store(services)

	toolName := spec.ToolName
	if toolName == nil {
		toolName = DefaultToolName
	}
	result := &ImportResult{}
	names := map[string]string{} // tool name → method
	for _, res := range services {
		sd := res.service
		methods := sd.Methods()
		for i := range methods.Len() {
			md := methods.Get(i)
			full := "/" + string(sd.FullName()) + "/" + string(md.Name())
			if reason := unfit(md); reason != "" {
				result.Skipped = append(result.Skipped, SkippedMethod{Method: full, Reason: reason})
				continue
			}
			name := toolName(string(sd.FullName()), string(md.Name()))
			if err := toolmodel.ValidateName(name); err != nil {
				return nil, errors.Errorf(errors.InvalidArgument, "tool name %q of %s: %w", name, full, err)
			}
			if other, ok := names[name]; ok {
				return nil, errors.Errorf(errors.Conflict, "methods %s and %s both make tool %q; set ImportSpec.ToolName", other, full, name)
			}
			names[name] = full
			reg, err := registration(spec, name, md)
			if err != nil {
				return nil, err
			}
			result.Registrations = append(result.Registrations, reg)
		}
	}
	return result, nil
}

// importServices resolves the named services, or all but reflection and
// health, on one reflection stream.
func (c *conn) importServices(ctx context.Context, names []string) ([]*resolved, error) {
	s := c.newSession(ctx)
	defer s.close()
	if len(names) == 0 {
		listed, err := s.listServices()
		if err != nil {
			return nil, reflectionError(ctx, err)
		}
		names = slices.DeleteFunc(listed, func(name string) bool {
			return strings.HasPrefix(name, "grpc.reflection.") || name == "grpc.health.v1.Health"
		})
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	services := make([]*resolved, 0, len(names))
	for _, name := range names {
		res, err := s.service(name)
		if err != nil {
			return nil, reflectionError(ctx, err)
		}
		services = append(services, res)
	}
	return services, nil
}

// unfit says why a method cannot be a tool, or returns "".
func unfit(md protoreflect.MethodDescriptor) string {
	if md.IsStreamingClient() {
		return "it streams its requests; only unary and server-streaming methods can be tools"
	}
	if !jsonIsObject(md.Input()) {
		return "its request " + string(md.Input().FullName()) + " is not a JSON object, as tool arguments are"
	}
	return ""
}

// registration returns the tool of a method and its backend.
func registration(spec ImportSpec, name string, md protoreflect.MethodDescriptor) (toolindex.Registration, error) {
	sd := md.Parent().(protoreflect.ServiceDescriptor)
	full := "/" + string(sd.FullName()) + "/" + string(md.Name())
	input, err := json.Marshal(messageSchema(md.Input(), inputMode))
	if err != nil {
		return toolindex.Registration{}, errors.Errorf(errors.Internal, "input schema of %s: %w", full, err)
	}
	output, err := json.Marshal(messageSchema(md.Output(), outputMode))
	if err != nil {
		return toolindex.Registration{}, errors.Errorf(errors.Internal, "output schema of %s: %w", full, err)
	}
	tool := toolmodel.Tool{
		Tool: mcp.Tool{Name: name, Description: description(full, md), InputSchema: json.RawMessage(input),
			Annotations: annotations(md)},
		Namespace: spec.Namespace,
		Tags:      toolmodel.NormalizeTags([]string{"grpc", string(sd.Name())}),
	}
	switch {
	case md.IsStreamingServer():
		var messageSchema any
		if err := json.Unmarshal(output, &messageSchema); err != nil {
			return toolindex.Registration{}, errors.Errorf(errors.Internal, "message schema of %s: %w", full, err)
		}
		tool.Metadata = map[string]any{"grpc": map[string]any{"streaming": "server", "messageSchema": messageSchema}}
	case jsonIsObject(md.Output()):
		tool.OutputSchema = json.RawMessage(output)
	}
	var tlsConfig *toolmodel.GRPCTLS
	if spec.TLS != nil {
		copied := *spec.TLS
		tlsConfig = &copied
	}
	backend := toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{
		Address: spec.Address, Method: full, TLS: tlsConfig, Metadata: maps.Clone(spec.Metadata), Timeout: spec.Timeout,
	}}
	if err := tool.Validate(); err != nil {
		return toolindex.Registration{}, err
	}
	if err := backend.Validate(); err != nil {
		return toolindex.Registration{}, err
	}
	return toolindex.Registration{Tool: tool, Backend: backend}, nil
}

// annotations returns the hints a method's idempotency_level option
// implies: NO_SIDE_EFFECTS only reads, IDEMPOTENT may be called again
// (which lets the runner retry it, see toolrun.SafeToRepeat); nil when
// the method declares neither.
func annotations(md protoreflect.MethodDescriptor) *mcp.ToolAnnotations {
	opts, ok := md.Options().(*descriptorpb.MethodOptions)
	if !ok {
		return nil
	}
	switch opts.GetIdempotencyLevel() {
	case descriptorpb.MethodOptions_NO_SIDE_EFFECTS:
		return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	case descriptorpb.MethodOptions_IDEMPOTENT:
		return &mcp.ToolAnnotations{IdempotentHint: true}
	}
	return nil
}

// description returns a tool's description: the method's comment, else a
// generated sentence, then what the caller of a streaming method should
// know.
func description(full string, md protoreflect.MethodDescriptor) string {
	text := "Calls the gRPC method " + full + "."
	if c := comment(md); c != "" {
		text = c + "\n\ngRPC method " + full + "."
	}
	if md.IsStreamingServer() {
		text += "\n\nThe method streams its results: run with chunks, each message arrives as it comes;" +
			" otherwise the result is the array of all the messages once the stream ends."
	}
	return text
}

// DefaultToolName names the tool of a method: the service's name without
// its package and the method's name, both in snake case, joined by '_'
// ("grpc.health.v1.Health", "Check" → "health_check";
// "shop.v1.OrderService", "GetHTTPStatus" → "order_service_get_http_status"),
// cut to [toolmodel.MaxNameLen]. Bytes outside ASCII letters and digits
// become '_'. It returns "" when neither name has a letter or digit.
func DefaultToolName(service, method string) string {
	if i := strings.LastIndexByte(service, '.'); i >= 0 {
		service = service[i+1:]
	}
	name := snakeCase(service)
	if m := snakeCase(method); m != "" {
		if name != "" {
			name += "_"
		}
		name += m
	}
	if len(name) > toolmodel.MaxNameLen {
		name = strings.TrimRight(name[:toolmodel.MaxNameLen], "_")
	}
	return name
}

// snakeCase returns s in lower snake case: a '_' goes before an upper-case
// letter that follows a lower-case letter or a digit, or that starts a
// word after an acronym ("HTTPServer" → "http_server"); runs of other
// bytes become one '_', and none leads or trails.
func snakeCase(s string) string {
	var b strings.Builder
	lower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case upper(c):
			if i > 0 && (lower(s[i-1]) || digit(s[i-1]) || upper(s[i-1]) && i+1 < len(s) && lower(s[i+1])) {
				sep()
			}
			b.WriteByte(c + 'a' - 'A')
		case lower(c) || digit(c):
			b.WriteByte(c)
		default:
			sep()
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

// Source is a [toolindex.Source] of the tools of a gRPC server: each
// refresh of an index imports them again (see [Executor.Import]), so the
// index follows the server's services as they change. Its methods are
// safe for concurrent use.
type Source struct {
	e    *Executor
	spec ImportSpec
}

var _ toolindex.Source = (*Source)(nil)

// Source returns a source listing the tools that Import returns for
// spec. The spec must not be modified afterwards.
func (e *Executor) Source(spec ImportSpec) *Source { return &Source{e: e, spec: spec} }

// Identity implements [toolindex.Source]: "grpc:<address>", the identity
// of the backends of the source's tools.
func (s *Source) Identity() string {
	b := Backend(s.spec.Address, "")
	return b.Identity()
}

// ListTools implements [toolindex.Source].
func (s *Source) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	result, err := s.e.Import(ctx, s.spec)
	if err != nil {
		return nil, err
	}
	return result.Registrations, nil
}

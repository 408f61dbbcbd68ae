package grpcexec

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// connKey identifies a pooled connection: the address and everything that
// shapes its transport security.
type connKey struct {
	address    string
	insecure   bool
	caFile     string
	serverName string
}

func keyOf(b *toolmodel.GRPCBackend) connKey {
	k := connKey{address: b.Address}
	if b.TLS != nil {
		k.insecure, k.caFile, k.serverName = b.TLS.Insecure, b.TLS.CAFile, b.TLS.ServerName
	}
	return k
}

// conn is a pooled client connection with the descriptors resolved
// through it.
type conn struct {
	cc    *grpc.ClientConn
	watch *connWatch

	// reflectionMethod is the reflection method the server answers, once
	// known; empty until then.
	reflectionMethod atomic.Pointer[string]

	mu       sync.Mutex
	services map[string]*resolved
	inflight map[string]*resolution
}

// resolved is a service's descriptor with the types it was built with,
// and the transport generation it was resolved in.
type resolved struct {
	service protoreflect.ServiceDescriptor
	types   typeResolver
	gen     uint64
}

// resolution is a resolution in progress, which concurrent callers wait
// for instead of starting their own.
type resolution struct {
	done chan struct{}
	res  *resolved
	err  error
}

// connWatch counts the transports a connection opens and closes, so that
// descriptors resolved before a reconnection are known to be stale: the
// server at the other end may have been redeployed.
//
// A new transport is counted before any call uses it, so a call that
// starts after another call reconnected always sees the new generation.
type connWatch struct {
	gen atomic.Uint64
}

var _ stats.Handler = (*connWatch)(nil)

func (w *connWatch) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

// HandleRPC records, in the [sendWatch] of a call's context, that the
// headers of the call's method were handed to the transport: from then
// on the request may reach the server.
func (w *connWatch) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if h, ok := s.(*stats.OutHeader); ok && h.Client {
		if sw, ok := ctx.Value(sendWatchKey{}).(*sendWatch); ok && h.FullMethod == sw.method {
			sw.sent.Store(true)
		}
	}
}

// sendWatch tells whether a call's request may have left: the headers
// of its method, not those of the reflection calls made to resolve it,
// were handed to a transport. A call that fails before then never
// reached the server.
type sendWatch struct {
	method string
	sent   atomic.Bool
}

type sendWatchKey struct{}

// watchSending returns ctx carrying a new sendWatch of method.
func watchSending(ctx context.Context, method string) (context.Context, *sendWatch) {
	sw := &sendWatch{method: method}
	return context.WithValue(ctx, sendWatchKey{}, sw), sw
}

func (w *connWatch) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (w *connWatch) HandleConn(_ context.Context, s stats.ConnStats) {
	switch s.(type) {
	case *stats.ConnBegin, *stats.ConnEnd:
		w.gen.Add(1)
	}
}

// connFor returns the pooled connection for b, creating it on first use.
func (e *Executor) connFor(b *toolmodel.GRPCBackend) (*conn, error) {
	key := keyOf(b)
	e.mu.Lock()
	c, ok := e.conns[key]
	closed := e.closed
	e.mu.Unlock()
	switch {
	case closed:
		return nil, errClosed()
	case ok:
		return c, nil
	}

	creds, err := transportCredentials(key)
	if err != nil {
		return nil, err
	}
	watch := &connWatch{}
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithStatsHandler(watch)}, e.dialOptions...)
	cc, err := grpc.NewClient(key.address, opts...)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "connect to %q: %w", key.address, err)
	}
	c = &conn{cc: cc, watch: watch, services: map[string]*resolved{}, inflight: map[string]*resolution{}}

	e.mu.Lock()
	defer e.mu.Unlock()
	if prev, ok := e.conns[key]; ok || e.closed {
		// Another call made the connection meanwhile, or the executor
		// was closed: this one was never used.
		_ = cc.Close()
		if e.closed {
			return nil, errClosed()
		}
		return prev, nil
	}
	e.conns[key] = c
	return c, nil
}

// errClosed is the error of a call made after Close: unavailable, and for
// good, so not retryable.
func errClosed() *errors.Error {
	e := errors.Errorf(errors.Unavailable, "executor is closed")
	e.Retryable = false
	return e
}

// transportCredentials returns the credentials a connection key asks for:
// TLS with the system's roots by default, or with the roots of a CA file,
// and no security only towards a loopback address.
func transportCredentials(key connKey) (credentials.TransportCredentials, error) {
	if key.insecure {
		if key.caFile != "" || key.serverName != "" {
			return nil, errors.Errorf(errors.InvalidArgument, "tls.insecure excludes tls.caFile and tls.serverName")
		}
		if !isLoopback(key.address) {
			return nil, errors.Errorf(errors.InvalidArgument, "tls.insecure is allowed only for loopback addresses, not %q", key.address)
		}
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: key.serverName}
	if key.caFile != "" {
		pem, err := os.ReadFile(key.caFile)
		if err != nil {
			return nil, errors.Errorf(errors.InvalidArgument, "read tls.caFile: %w", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, errors.Errorf(errors.InvalidArgument, "tls.caFile %q holds no PEM certificate", key.caFile)
		}
		cfg.RootCAs = roots
	}
	return credentials.NewTLS(cfg), nil
}

// isLoopback reports whether address is host:port with a host that is
// "localhost" or a loopback IP.
func isLoopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// outgoing returns ctx carrying the headers of a call: the outgoing
// metadata ctx already has, overridden by the backend's metadata,
// overridden by the call's metadata under the forwarded keys. Keys are
// lowercased; a key or value that gRPC would refuse is an
// [errors.InvalidArgument].
func outgoing(ctx context.Context, backend, call map[string]string, forward map[string]bool) (context.Context, error) {
	if len(backend) == 0 && len(forward) == 0 {
		return ctx, nil
	}
	md, _ := metadata.FromOutgoingContext(ctx) // a copy
	if md == nil {
		md = metadata.MD{}
	}
	add := func(key, value string) error {
		key = strings.ToLower(key)
		if err := checkHeader(key, value); err != nil {
			return err
		}
		md[key] = []string{value}
		return nil
	}
	for k, v := range backend {
		if err := add(k, v); err != nil {
			return nil, err
		}
	}
	for k, v := range call {
		if forward[strings.ToLower(k)] {
			if err := add(k, v); err != nil {
				return nil, err
			}
		}
	}
	return metadata.NewOutgoingContext(ctx, md), nil
}

// checkHeader applies gRPC's rules for a lowercased header: a key of
// [0-9a-z-_.] not reserved by gRPC, and a printable ASCII value unless the
// key ends in "-bin".
func checkHeader(key, value string) error {
	if key == "" || strings.HasPrefix(key, "grpc-") {
		return errors.Errorf(errors.InvalidArgument, "metadata key %q is empty or reserved by gRPC", key)
	}
	for i := range len(key) {
		c := key[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return errors.Errorf(errors.InvalidArgument, "metadata key %q has a byte outside [0-9a-z-_.]", key)
		}
	}
	if strings.HasSuffix(key, "-bin") {
		return nil
	}
	for i := range len(value) {
		if value[i] < 0x20 || value[i] > 0x7e {
			return errors.Errorf(errors.InvalidArgument, "metadata value of %q has a byte outside printable ASCII", key)
		}
	}
	return nil
}

// closeAll closes every pooled connection and joins their errors.
func closeAll(conns map[connKey]*conn) error {
	var errs []error
	for key, c := range conns {
		if err := c.cc.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close connection to %s: %w", key.address, err))
		}
	}
	return errors.Join(errs...)
}

package grpcexec_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// newTLS returns a server TLS configuration with a certificate for
// 127.0.0.1 and grpc.test, signed by a new CA whose PEM file it writes.
func newTLS(t *testing.T) (cfg *tls.Config, caFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "grpcexec test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leafTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "grpc.test"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"grpc.test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, ca, &key.PublicKey, caKey)
	require.NoError(t, err)

	caFile = filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	cfg = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}},
	}
	return cfg, caFile
}

func TestTLS(t *testing.T) {
	cfg, caFile := newTLS(t)
	s := testservice.Start(t, testservice.Options{TLS: cfg})
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))

	tests := []struct {
		name    string
		tls     *toolmodel.GRPCTLS
		code    errors.Code // "" for success
		mention string
	}{
		{name: "trusted CA file", tls: &toolmodel.GRPCTLS{CAFile: caFile}},
		{name: "server name override", tls: &toolmodel.GRPCTLS{CAFile: caFile, ServerName: "grpc.test"}},
		{name: "wrong server name", tls: &toolmodel.GRPCTLS{CAFile: caFile, ServerName: "other.test"}, code: errors.Unavailable, mention: "other.test"},
		{name: "system roots do not know the CA", tls: nil, code: errors.Unavailable, mention: "certificate"},
		{name: "missing CA file", tls: &toolmodel.GRPCTLS{CAFile: filepath.Join(t.TempDir(), "none.pem")}, code: errors.InvalidArgument, mention: "caFile"},
		{name: "CA file without a certificate", tls: &toolmodel.GRPCTLS{CAFile: notPEM}, code: errors.InvalidArgument, mention: "no PEM certificate"},
		{name: "insecure with a CA file", tls: &toolmodel.GRPCTLS{Insecure: true, CAFile: caFile}, code: errors.InvalidArgument, mention: "excludes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := grpcexec.Backend(s.Addr, testservice.Method("EchoStruct"))
			b.GRPC.TLS = tt.tls
			out, err := newExecutor(t).Execute(context.Background(), call(b, map[string]any{"k": "v"}))
			if tt.code == "" {
				require.NoError(t, err)
				assert.Equal(t, map[string]any{"k": "v"}, out.Structured)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err), "error: %v", err)
			assert.ErrorContains(t, err, tt.mention)
		})
	}
}

func TestInsecureOnlyForLoopback(t *testing.T) {
	s := start(t)
	_, port, err := net.SplitHostPort(s.Addr)
	require.NoError(t, err)
	tests := []struct {
		address string
		allowed bool
	}{
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{s.Addr, true},
		{"example.com:443", false},
		{"10.1.2.3:50051", false},
		{"[2001:db8::1]:443", false},
		{"0.0.0.0:" + port, false},
		{"127.0.0.1", false}, // no port: not host:port
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			b := grpcexec.Backend(tt.address, testservice.Method("EchoStruct"))
			b.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
			_, err := newExecutor(t).Execute(context.Background(), call(b, nil))
			if tt.allowed {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.ErrorContains(t, err, "loopback")
		})
	}
}

//go:build e2e_kubernetes

package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// adminToken is the bearer token of the API server's administrator, a
// member of system:masters, in the static token file of the test.
const adminToken = "e2e-admin-token"

// cluster is an etcd and a kube-apiserver on loopback: the control plane
// without a scheduler, a controller manager or a kubelet, so that objects
// are admitted and stored, and pods never run.
type cluster struct {
	config *rest.Config
	client kubernetes.Interface
	logs   *lockedBuffer
}

// startCluster starts etcd and the API server from the binaries named by
// METATOOLS_ETCD and METATOOLS_KUBE_APISERVER (see scripts/kube-binaries.sh)
// and stops them when the test ends.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	etcdBin, apiserverBin := os.Getenv("METATOOLS_ETCD"), os.Getenv("METATOOLS_KUBE_APISERVER")
	require.NotEmpty(t, etcdBin, "METATOOLS_ETCD names the etcd binary (make e2e-kubernetes sets it)")
	require.NotEmpty(t, apiserverBin, "METATOOLS_KUBE_APISERVER names the kube-apiserver binary (make e2e-kubernetes sets it)")
	dir := t.TempDir()
	logs := &lockedBuffer{}

	clientPort, peerPort, securePort := freePort(t), freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	start(t, logs, "etcd", etcdBin,
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(peerPort),
		"--initial-advertise-peer-urls", "http://127.0.0.1:"+strconv.Itoa(peerPort),
		"--initial-cluster", "default=http://127.0.0.1:"+strconv.Itoa(peerPort),
		"--log-level", "warn")

	saKey, saPub := serviceAccountKeys(t, dir)
	tokens := filepath.Join(dir, "tokens.csv")
	require.NoError(t, os.WriteFile(tokens, []byte(adminToken+",admin,admin-uid,system:masters\n"), 0o600))
	start(t, logs, "kube-apiserver", apiserverBin,
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(securePort),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--token-auth-file", tokens,
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", saPub,
		"--service-account-signing-key-file", saKey,
		"--service-cluster-ip-range", "10.96.0.0/24",
		// The admission plugins of a real cluster; PodSecurity is among
		// the defaults and is what the test is about.
		"--enable-admission-plugins", "NamespaceLifecycle,ServiceAccount,PodSecurity,ResourceQuota,LimitRanger",
		"--v", "1")

	config := &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(securePort),
		BearerToken:     adminToken,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             100, Burst: 200,
	}
	client, err := kubernetes.NewForConfig(config)
	require.NoError(t, err)
	waitReady(t, client, logs)
	return &cluster{config: config, client: client, logs: logs}
}

// waitReady waits until the API server says it is ready, and its default
// namespace exists.
func waitReady(t *testing.T, client kubernetes.Interface, logs *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the API server did not become ready: %v\n%s", err, logs.String())
		case <-tick.C:
		}
	}
}

// start starts a binary and stops it (SIGTERM, then SIGKILL) at the end
// of the test; its output goes to logs.
func start(t *testing.T, logs *lockedBuffer, name, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logs.prefixed(name), logs.prefixed(name)
	require.NoError(t, cmd.Start(), "start %s", name)
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
}

// serviceAccountKeys writes the key pair the API server signs service
// account tokens with.
func serviceAccountKeys(t *testing.T, dir string) (keyPath, pubPath string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	keyPath, pubPath = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	require.NoError(t, os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600))
	return keyPath, pubPath
}

// freePort returns a TCP port free on loopback now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// lockedBuffer gathers the output of the control plane, for the failure
// messages of the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) prefixed(name string) *prefixWriter {
	return &prefixWriter{b: b, prefix: name + ": "}
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The end is what explains a failure.
	s := b.buf.String()
	if len(s) > 16<<10 {
		s = "[...]\n" + s[len(s)-16<<10:]
	}
	return s
}

type prefixWriter struct {
	b      *lockedBuffer
	prefix string
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	for line := range bytes.Lines(p) {
		fmt.Fprintf(&w.b.buf, "%s%s", w.prefix, line)
	}
	return len(p), nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bytes the content upstream returns: a PNG header with a body of 2000
// bytes, a short WAV and a binary resource.
var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 2000)...)
	wavBytes  = []byte("RIFF\x24\x00\x00\x00WAVEfmt ")
	blobBytes = []byte{0, 1, 2, 3, 255}
)

// contentUpstream serves, over streamable HTTP on the loopback, an MCP
// server whose tools return every kind of content, and returns a
// configuration with it as the upstream "media".
func contentUpstream(t *testing.T) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "media", Version: "1"}, nil)
	add := func(name string, content ...mcp.Content) {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: content}, nil
			})
	}
	size := int64(1536)
	add("picture", &mcp.TextContent{Text: "A picture:"}, &mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}, &mcp.TextContent{Text: "That was it."})
	add("sound", &mcp.AudioContent{Data: wavBytes, MIMEType: "audio/wav"})
	add("links", &mcp.ResourceLink{URI: "file:///tmp/report.pdf", Name: "Quarterly report", MIMEType: "application/pdf", Size: &size})
	add("resources",
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://note", MIMEType: "text/plain", Text: "a note"}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://blob", MIMEType: "application/octet-stream", Blob: blobBytes}})
	web := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(web.Close)
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(path, fmt.Appendf(nil, "builtin: {disabled: true}\nmcpServers:\n  - name: media\n    url: %q\n", web.URL), 0o600))
	return path
}

func TestRunShowsEveryKindOfContent(t *testing.T) {
	cfg := contentUpstream(t)
	tests := []struct {
		tool string
		want string
	}{
		{"media:picture", "A picture:\n[image image/png, 2.0 KiB]\nThat was it.\n"},
		{"media:sound", "[audio audio/wav, 16 B]\n"},
		{"media:links", "[resource link file:///tmp/report.pdf \"Quarterly report\", application/pdf, 1.5 KiB]\n"},
		{"media:resources", "[resource mem://note, text/plain]\na note\n[resource mem://blob application/octet-stream, 5 B]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", "run", "--config", cfg, tt.tool)
			require.Equal(t, exitOK, code, stderr)
			assert.Equal(t, tt.want, stdout)
		})
	}
}

func TestRunSavesBinaryContent(t *testing.T) {
	cfg := contentUpstream(t)
	dir := filepath.Join(t.TempDir(), "out", "new")
	code, stdout, stderr := cli(t, "", "run", "--config", cfg, "--out", dir, "media:picture")
	require.Equal(t, exitOK, code, stderr)
	saved := filepath.Join(dir, "picture-1.png")
	assert.Equal(t, "A picture:\n[image image/png, 2.0 KiB] saved to "+saved+"\nThat was it.\n", stdout)
	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Equal(t, pngBytes, data)

	code, stdout, stderr = cli(t, "", "run", "--config", cfg, "--out", dir, "media:resources")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "saved to "+filepath.Join(dir, "resources-1.bin"))
	data, err = os.ReadFile(filepath.Join(dir, "resources-1.bin"))
	require.NoError(t, err)
	assert.Equal(t, blobBytes, data)

	// --out to a path that cannot be a directory fails with the reason.
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	code, _, stderr = cli(t, "", "run", "--config", cfg, "--out", file, "media:sound")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "--out:")
}

func TestRunJSONKeepsTheWholeContent(t *testing.T) {
	cfg := contentUpstream(t)
	dir := t.TempDir()
	code, stdout, stderr := cli(t, "", "run", "--config", cfg, "--json", "--out", dir, "media:picture")
	require.Equal(t, exitOK, code, stderr)
	var out struct {
		ID      string
		Content []struct {
			Type, Text, MIMEType string
			Data                 []byte // base64 on the wire
		}
		Files []string
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	assert.Equal(t, "media:picture", out.ID)
	require.Len(t, out.Content, 3)
	assert.Equal(t, "text", out.Content[0].Type)
	assert.Equal(t, "image", out.Content[1].Type)
	assert.Equal(t, "image/png", out.Content[1].MIMEType)
	assert.Equal(t, pngBytes, out.Content[1].Data)
	assert.Equal(t, []string{filepath.Join(dir, "picture-1.png")}, out.Files)
}

func TestContentHelpers(t *testing.T) {
	sizes := map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 12595: "12.3 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"}
	for n, want := range sizes {
		assert.Equal(t, want, formatSize(n), n)
	}
	extensions := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "audio/wav": ".wav", "text/plain; charset=utf-8": ".txt",
		"application/x-unknown-thing": ".bin", "": ".bin", "not a type": ".bin"}
	for mimeType, want := range extensions {
		assert.Equal(t, want, extension(mimeType), mimeType)
	}
	bases := map[string]string{"everything:get-tiny-image": "get-tiny-image", "a/b:../x y": "_x_y", "plain": "plain", "ns:": "content", "ns:...": "content"}
	for id, want := range bases {
		got := fileBase(id)
		assert.Equal(t, want, got, id)
		assert.False(t, strings.ContainsAny(got, `/\`), got)
	}
}

package main

import (
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// contentPrinter prints a tool's MCP content for a person: text as it is,
// everything else as one bracketed line saying what it is, and, when dir
// is set, binary content saved to files in dir.
type contentPrinter struct {
	w io.Writer
	// dir is where binary content is saved; empty saves nothing.
	dir string
	// base starts the names of saved files: the tool's name.
	base string
	// saved are the files saved, in order.
	saved []string
}

// print prints every item of content in order.
func (p *contentPrinter) print(content []mcp.Content) error {
	for _, c := range content {
		if err := p.item(c); err != nil {
			return err
		}
	}
	return nil
}

func (p *contentPrinter) item(c mcp.Content) error {
	switch c := c.(type) {
	case *mcp.TextContent:
		fmt.Fprintln(p.w, strings.TrimSuffix(c.Text, "\n"))
		return nil
	case *mcp.ImageContent:
		return p.binary("image", c.MIMEType, "", c.Data)
	case *mcp.AudioContent:
		return p.binary("audio", c.MIMEType, "", c.Data)
	case *mcp.ResourceLink:
		line := "[resource link " + c.URI
		if c.Name != "" && c.Name != c.URI {
			line += " " + quoteIfSpaced(c.Name)
		}
		if c.MIMEType != "" {
			line += ", " + c.MIMEType
		}
		if c.Size != nil {
			line += ", " + formatSize(*c.Size)
		}
		fmt.Fprintln(p.w, line+"]")
		return nil
	case *mcp.EmbeddedResource:
		r := c.Resource
		if r == nil {
			fmt.Fprintln(p.w, "[resource, empty]")
			return nil
		}
		if r.Blob != nil {
			return p.binary("resource", r.MIMEType, r.URI, r.Blob)
		}
		head := "[resource " + r.URI
		if r.MIMEType != "" {
			head += ", " + r.MIMEType
		}
		fmt.Fprintln(p.w, head+"]")
		if r.Text != "" {
			fmt.Fprintln(p.w, strings.TrimSuffix(r.Text, "\n"))
		}
		return nil
	default:
		// A kind of content this version does not know: say so rather
		// than drop it; --json shows it whole.
		fmt.Fprintf(p.w, "[%T content: see --json]\n", c)
		return nil
	}
}

// binary prints the line of a binary item and saves it when asked to.
func (p *contentPrinter) binary(kind, mimeType, uri string, data []byte) error {
	line := "[" + kind
	if uri != "" {
		line += " " + uri
	}
	if mimeType != "" {
		line += " " + mimeType
	}
	line += ", " + formatSize(int64(len(data))) + "]"
	if p.dir == "" {
		fmt.Fprintln(p.w, line)
		return nil
	}
	if err := os.MkdirAll(p.dir, 0o750); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	path := filepath.Join(p.dir, fmt.Sprintf("%s-%d%s", p.base, len(p.saved)+1, extension(mimeType)))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	p.saved = append(p.saved, path)
	fmt.Fprintf(p.w, "%s saved to %s\n", line, path)
	return nil
}

// commonExtensions are the file extensions of the media types tools
// return most, fixed here because the system's MIME table may list
// several for one type (.jpe before .jpg) or none.
var commonExtensions = map[string]string{
	"image/png":        ".png",
	"image/jpeg":       ".jpg",
	"image/gif":        ".gif",
	"image/webp":       ".webp",
	"image/svg+xml":    ".svg",
	"audio/wav":        ".wav",
	"audio/x-wav":      ".wav",
	"audio/mpeg":       ".mp3",
	"audio/ogg":        ".ogg",
	"application/pdf":  ".pdf",
	"application/json": ".json",
	"application/gzip": ".gz",
	"text/plain":       ".txt",
}

// extension returns the file extension for a media type, ".bin" when it
// has none.
func extension(mimeType string) string {
	media, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ".bin"
	}
	if ext, ok := commonExtensions[media]; ok {
		return ext
	}
	if exts, err := mime.ExtensionsByType(media); err == nil && len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// fileBase returns a tool ID made safe as the start of a file name: its
// name without the namespace, any character but letters, digits, '.',
// '-' and '_' replaced.
func fileBase(toolID string) string {
	if i := strings.LastIndexByte(toolID, ':'); i >= 0 {
		toolID = toolID[i+1:]
	}
	base := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, toolID)
	base = strings.TrimLeft(base, ".")
	if base == "" {
		return "content"
	}
	return base
}

// formatSize returns n bytes for a person: 512 B, 12.3 KiB, 4.0 MiB.
func formatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	value, suffix := float64(n)/unit, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if value < unit {
			break
		}
		value, suffix = value/unit, next
	}
	return fmt.Sprintf("%.1f %s", value, suffix)
}

// quoteIfSpaced quotes s when it holds spaces, so that the bracketed line
// still reads as one item.
func quoteIfSpaced(s string) string {
	if strings.ContainsAny(s, " \t") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// textOnly reports whether content holds text alone (or nothing), and
// whether it holds any text.
func textOnly(content []mcp.Content) (only, hasText bool) {
	only = true
	for _, c := range content {
		if _, ok := c.(*mcp.TextContent); ok {
			hasText = true
		} else {
			only = false
		}
	}
	return only, hasText
}

package openapi_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

// BenchmarkImport measures importing the tracker fixture: 15 operations,
// parsed, converted and checked.
func BenchmarkImport(b *testing.B) {
	for _, name := range []string{"tracker-3.0.yaml", "tracker-3.1.json"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := openapi.Import("tracker", data, openapi.WithCredentials(trackerCredentials)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImportFileOverLimit measures refusing a document over the
// default size limit: a 20 MB file, which would take minutes and
// gigabytes to parse, is refused by its size without being read.
func BenchmarkImportFileOverLimit(b *testing.B) {
	path := filepath.Join(b.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Truncate(20 << 20); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := openapi.ImportFile(ctx, "huge", path); !errors.Is(err, openapi.ErrDocumentTooLarge) {
			b.Fatalf("got %v, want the document refused", err)
		}
	}
}

package openapi_test

import (
	"os"
	"path/filepath"
	"testing"

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

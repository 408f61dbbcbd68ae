package openapi_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// trackerCredentials are the credentials the tracker fixture's schemes
// need beyond the default secret names.
func trackerCredentials(scheme string) openapi.Credentials {
	switch scheme {
	case "basicAuth":
		return openapi.Credentials{Username: "admin"}
	case "oauth":
		return openapi.Credentials{Username: "tracker-cli", Secret: "TRACKER_CLIENT_SECRET"}
	}
	return openapi.Credentials{}
}

// importFixture imports a document of testdata and returns its
// registrations and warnings.
func importFixture(t *testing.T, name string, opts ...openapi.Option) ([]toolindex.Registration, []string) {
	t.Helper()
	var warnings []string
	opts = append([]openapi.Option{
		openapi.WithCredentials(trackerCredentials),
		openapi.WithWarnings(func(w openapi.Warning) { warnings = append(warnings, w.String()) }),
	}, opts...)
	regs, err := openapi.ImportFile(context.Background(), "tracker", filepath.Join("testdata", name), opts...)
	require.NoError(t, err)
	return regs, warnings
}

// render returns the registrations and warnings as indented JSON.
func render(t *testing.T, regs []toolindex.Registration, warnings []string) []byte {
	t.Helper()
	type entry struct {
		Tool    any `json:"tool"`
		Backend any `json:"backend"`
	}
	out := struct {
		Tools    []entry  `json:"tools"`
		Warnings []string `json:"warnings"`
	}{Warnings: warnings}
	for _, r := range regs {
		out.Tools = append(out.Tools, entry{Tool: r.Tool, Backend: r.Backend})
	}
	data, err := json.MarshalIndent(out, "", "  ")
	require.NoError(t, err)
	return append(data, '\n')
}

func TestImportGolden(t *testing.T) {
	for _, fixture := range []string{"tracker-3.0.yaml", "tracker-3.1.json"} {
		t.Run(fixture, func(t *testing.T) {
			regs, warnings := importFixture(t, fixture)
			got := render(t, regs, warnings)
			golden := filepath.Join("testdata", strings.TrimSuffix(fixture, filepath.Ext(fixture))+".golden.json")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create the golden file")
			assert.Equal(t, string(want), string(got))
		})
	}
}

package trust_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// evalDir holds the benign catalogues the false-positive test scans; the
// test is skipped where they are absent.
const evalDir = "/work/shared/eval"

var evalCatalogues = []string{"livemcp", "mcp-reference", "metatool"}

// loadCatalogue reads one catalogue of toolmodel.Tool JSON lines as items,
// each namespace an upstream (a tool without namespace is an upstream of
// its own, as the plugins of the metatool set are).
func loadCatalogue(tb testing.TB, name string) []trust.Item {
	tb.Helper()
	f, err := os.Open(filepath.Join(evalDir, name, "tools.jsonl"))
	if os.IsNotExist(err) {
		tb.Skipf("no evaluation catalogue %s", name)
	}
	require.NoError(tb, err)
	defer f.Close()
	var items []trust.Item
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var t toolmodel.Tool
		require.NoError(tb, json.Unmarshal(sc.Bytes(), &t))
		upstream := t.Namespace
		if upstream == "" {
			upstream = t.Name
		}
		it, err := trust.ToolItem(upstream, &t.Tool)
		require.NoError(tb, err)
		it.Namespace = t.Namespace
		items = append(items, it)
	}
	require.NoError(tb, sc.Err())
	return items
}

// TestEvalCataloguesHaveNoHighFinding scans the benign catalogues, names
// included, and fails on any high-severity finding. With -v it prints the
// findings per rule and severity that the README reports.
func TestEvalCataloguesHaveNoHighFinding(t *testing.T) {
	s, err := trust.NewScanner()
	require.NoError(t, err)
	for _, cat := range evalCatalogues {
		t.Run(cat, func(t *testing.T) {
			items := loadCatalogue(t, cat)
			names := trust.NewNames()
			counts := map[string]int{}
			for i := range items {
				fs := s.Scan(&items[i])
				fs = append(fs, s.ScanName(names, &items[i])...)
				names.AddItem(&items[i])
				for _, f := range fs {
					counts[f.Severity.String()+" "+f.Code]++
					assert.Less(t, f.Severity, trust.SeverityHigh, "%s: %s", items[i].ID(), f.String())
					if testing.Verbose() {
						t.Logf("%s: %s", items[i].ID(), f.String())
					}
				}
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var b strings.Builder
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%d", k, counts[k])
			}
			if b.Len() == 0 {
				b.WriteString(" none")
			}
			t.Logf("%s: %d tools, findings:%s", cat, len(items), b.String())
		})
	}
}

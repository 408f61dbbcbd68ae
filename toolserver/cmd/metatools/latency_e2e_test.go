package main

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// latencyReport is what testdata/codemode/latency.mjs prints.
type latencyReport struct {
	// First is the round trip of the server's first execution, in ms.
	First float64 `json:"first"`
	// Times are the round trips of the executions after it, in ms.
	Times []float64 `json:"times"`
	// Values are the programs' values, the first execution's first.
	Values [][]int `json:"values"`
	// Calls are how many tool calls of each program succeeded.
	Calls []int `json:"calls"`
	// Isolation is the _meta of each result saying how it ran.
	Isolation []struct {
		Backend string `json:"backend"`
		Profile string `json:"profile"`
	} `json:"isolation"`
}

// TestExecuteCodeLatency measures what an agent waits for execute_code
// running a program of ten tool calls made one after the other, under
// each security profile: `metatools serve --http` with server-everything
// as an upstream, and the official TypeScript SDK's streamable HTTP
// client timing each callTool round trip. It logs the first execution
// after the server started and the p50, p90 and max of the next ones,
// and checks every program's value and the backend that ran it. The
// only bound on time is a sanity bound: the machine the tests run on may
// be busy, and the figures are for reading, not for failing a build.
func TestExecuteCodeLatency(t *testing.T) {
	const runs, calls = 30, 10
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	npmFile(t, "@modelcontextprotocol", "sdk", "dist", "esm", "client", "streamableHttp.js")

	for _, p := range []struct{ profile, backend string }{
		{"dev", "inprocess"},
		{"standard", "process"},
		{"hardened", "wasm"},
	} {
		t.Run(p.profile, func(t *testing.T) {
			const token = "latency-secret"
			endpoint := serveHTTP(t, []string{"METATOOLS_TOKEN=" + token}, "--config", codeModeProfileConfig(t, p.profile))

			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "codemode", "latency.mjs"), modules, endpoint, token, strconv.Itoa(runs))
			cmd.Stderr = &testWriter{t: t}
			out, err := cmd.Output()
			require.NoError(t, err)
			var r latencyReport
			require.NoError(t, json.Unmarshal(out, &r), string(out))

			// Every execution, the first included, did its ten calls and
			// returned their values, on the profile's backend.
			require.Len(t, r.Times, runs)
			require.Len(t, r.Values, runs+1)
			for i, got := range r.Values {
				want := make([]int, calls)
				for k := range want {
					want[k] = i*100 + k
				}
				assert.Equal(t, want, got, "the value of execution %d", i)
			}
			assert.Equal(t, slices.Repeat([]int{calls}, runs+1), r.Calls, "every tool call of every execution succeeded")
			require.Len(t, r.Isolation, runs+1)
			for i, iso := range r.Isolation {
				assert.Equal(t, p.backend, iso.Backend, "the backend of execution %d", i)
				assert.Equal(t, p.profile, iso.Profile, "the profile of execution %d", i)
			}

			sorted := slices.Sorted(slices.Values(r.Times))
			p50, p90 := percentile(sorted, 0.5), percentile(sorted, 0.9)
			t.Logf("execute_code, %d sequential tool calls, profile %s (%s backend), over streamable HTTP: "+
				"first execution %.1f ms; next %d: p50 %.1f ms, p90 %.1f ms, max %.1f ms",
				calls, p.profile, p.backend, r.First, runs, p50, p90, sorted[len(sorted)-1])
			assert.Less(t, p50, 2000.0, "the median round trip of a ten-call program stays within a sanity bound")
		})
	}
}

// percentile returns the q-th quantile (0 < q <= 1) of sorted, by the
// nearest rank: the smallest value that at least q of the values do not
// exceed.
func percentile(sorted []float64, q float64) float64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

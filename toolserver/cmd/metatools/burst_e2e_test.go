package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolruntime/process"
)

// TestBurstOfHostilePrograms sends 50 execute_code requests at once to a
// server of the standard profile (each program in a sandboxed process),
// half of them allocating without end and half looping forever, while
// another client searches: at most codeMode.admission.running sandboxes
// exist at any time, besides the one kept ready for the next program, the server's memory stays bounded, every program
// ends with the error of its limit, and searches keep their answers
// quick.
func TestBurstOfHostilePrograms(t *testing.T) {
	const running, programs = 8, 50
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("codeMode:\n  enabled: true\n  profile: standard\n"+
		"  admission: {running: %d, queued: %d, wait: 2m}\n  limits: {wallTime: 2s}\n"+
		"  sandbox: {memory: 67108864, cpuTime: 1s}\n", running, programs))
	s := startServed(t, nil, "--config", cfg)
	server := s.cmd.Process.Pid

	var wg sync.WaitGroup
	outcomes := make([]string, programs)
	for i := range programs {
		code := `const a = []; while (true) a.push(new Uint8Array(1 << 24).fill(7));`
		if i%2 == 1 {
			code = `while (true) {}`
		}
		wg.Go(func() {
			cs := connectHTTP(t, s.endpoint, "")
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
			if err != nil {
				outcomes[i] = "protocol error: " + err.Error()
				return
			}
			outcomes[i] = resultText(res)
		})
	}

	// While the programs run: the sandboxes alive, the server's memory
	// with theirs, and how long a search takes.
	search := connectHTTP(t, s.endpoint, "")
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	var maxSandboxes int
	var maxRSS int64
	var latencies []time.Duration
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
		}
		tree := descendants(t, server)
		sandboxes := 0
		rss := int64(0)
		for _, p := range tree {
			if argv := strings.Fields(p.cmdline); len(argv) > 0 && filepath.Base(argv[0]) == "toolruntime-runner" {
				sandboxes++
			}
			rss += p.rss
		}
		maxSandboxes, maxRSS = max(maxSandboxes, sandboxes), max(maxRSS, rss+processRSS(t, server))
		begin := time.Now()
		res, err := search.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "evaluate an expression"}})
		require.NoError(t, err)
		require.False(t, res.IsError, resultText(res))
		latencies = append(latencies, time.Since(begin))
	}

	slices.Sort(latencies)
	median, worst := latencies[len(latencies)/2], latencies[len(latencies)-1]
	t.Logf("%d programs, %d at once: at most %d sandboxes, %d MiB for the server and its sandboxes; "+
		"%d searches meanwhile, median %s, worst %s", programs, running, maxSandboxes, maxRSS>>20, len(latencies), median, worst)
	// The places, and the runner processes kept ready for the next
	// programs.
	sandboxBound := running + process.DefaultSpares
	assert.LessOrEqual(t, maxSandboxes, sandboxBound, "no more sandboxes than places and those kept ready")
	assert.Positive(t, maxSandboxes)
	assert.Less(t, maxRSS, int64(sandboxBound*64<<20+512<<20), "the sandboxes' memory is bounded, and so is the server's")
	assert.Less(t, median, 100*time.Millisecond, "searches are answered quickly meanwhile")
	limits := map[string]int{}
	for i, out := range outcomes {
		limit := ""
		for _, l := range []string{"memory", "wall_time", "cpu_time"} {
			if strings.Contains(out, l+" limit reached") {
				limit = l
			}
		}
		assert.NotEmpty(t, limit, "program %d ends with its limit's error: %s", i, out)
		if i%2 == 1 {
			assert.NotEqual(t, "memory", limit, "program %d loops: its time runs out", i)
		}
		limits[limit]++
	}
	// Which limit an allocating program reaches first depends on the
	// CPU it gets: memory, or its time on a loaded machine.
	t.Logf("limits reached: %v", limits)
}

// proc is a process of the tree [descendants] walks.
type proc struct {
	pid     int
	cmdline string
	rss     int64
}

// descendants returns the processes under pid, from /proc.
func descendants(t *testing.T, pid int) []proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// The parent is the second field after the command's parenthesis.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			parent, _ := strconv.Atoi(fields[1])
			children[parent] = append(children[parent], child)
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(c), "cmdline"))
			out = append(out, proc{pid: c, cmdline: strings.ReplaceAll(string(cmdline), "\x00", " "), rss: processRSS(t, c)})
			queue = append(queue, c)
		}
	}
	return out
}

// processRSS returns the resident memory of pid in bytes, 0 once it ended.
func processRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib << 10
		}
	}
	return 0
}

package toolruntimetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processGrace is how long the suite waits for a process a backend killed
// to disappear: the kill of a process group or a cgroup is asynchronous.
const processGrace = 5 * time.Second

// children returns the IDs of the live processes whose parent is this
// process, or nil where there is no /proc.
func children() map[int]bool {
	out := map[int]bool{}
	self := os.Getpid()
	forEachProcess(func(pid int, stat, _ []byte) {
		// stat is "pid (comm) state ppid ..."; comm may hold spaces and
		// parentheses, so parse after the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			return
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			return
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == self {
			out[pid] = true
		}
	})
	return out
}

// withToken returns the IDs of the live processes whose command line holds
// token: the processes a fork probe started, wherever they were reparented.
func withToken(token string) []int {
	var out []int
	forEachProcess(func(pid int, _, cmdline []byte) {
		if bytes.Contains(cmdline, []byte(token)) {
			out = append(out, pid)
		}
	})
	return out
}

func forEachProcess(f func(pid int, stat, cmdline []byte)) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		f(pid, stat, cmdline)
	}
}

// checkNoProcesses fails t when a child process that was not there before
// (before; none is checked when before is nil) or a process holding token
// (when not empty) is still alive after the grace period, and kills what
// it finds so that one failure does not leak into the next case.
func checkNoProcesses(t *testing.T, before map[int]bool, token string) {
	t.Helper()
	deadline := time.Now().Add(processGrace)
	for {
		var left []int
		if before != nil {
			for pid := range children() {
				if !before[pid] {
					left = append(left, pid)
				}
			}
		}
		if token != "" {
			left = append(left, withToken(token)...)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left running after the execution: %v", left)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		// The processes were killed and end soon; there is no event to
		// wait on for a process that is not this one's child.
		time.Sleep(10 * time.Millisecond)
	}
}

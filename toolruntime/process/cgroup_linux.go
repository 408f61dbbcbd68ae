package process

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// hierarchy is one cgroup hierarchy in which the backend creates the cgroup
// of each execution, under parent.
type hierarchy struct {
	parent string // absolute directory of the parent cgroup
	v2     bool
	memory bool
	pids   bool
}

// cgroups are the hierarchies the backend uses; memory and pids may come
// from different ones (cgroup v1).
type cgroups struct {
	hierarchies []hierarchy
}

func (c *cgroups) memory() (hierarchy, bool) {
	for _, h := range c.hierarchies {
		if h.memory {
			return h, true
		}
	}
	return hierarchy{}, false
}

func (c *cgroups) pids() (hierarchy, bool) {
	for _, h := range c.hierarchies {
		if h.pids {
			return h, true
		}
	}
	return hierarchy{}, false
}

// version names the mechanism of h in a [toolruntime.LimitsEnforced] row.
func (h hierarchy) version() string {
	if h.v2 {
		return "cgroup v2"
	}
	return "cgroup v1"
}

// mount is a cgroup file system of /proc/self/mountinfo.
type mount struct {
	dir     string
	root    string
	v2      bool
	options map[string]bool
}

// detectCgroups finds where this process may create cgroups with the
// memory and pids controllers: cgroup v2 when its hierarchy has both, else
// the v1 hierarchies. parent, when not empty, is the parent cgroup's path
// in each hierarchy; by default it is this process's own cgroup, so that
// whatever bounds the host also bounds the programs. Each candidate is
// probed (a cgroup created and removed), so that only what works is used.
func detectCgroups(parent string) (*cgroups, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	parentOf := func(m mount, key string) (string, bool) {
		p := parent
		if p == "" {
			var ok bool
			if p, ok = own[key]; !ok {
				return "", false
			}
			// A mount of a sub-tree shows paths relative to its root.
			rel, err := filepath.Rel(m.root, p)
			if err != nil || strings.HasPrefix(rel, "..") {
				return "", false
			}
			p = rel
		}
		return filepath.Join(m.dir, filepath.Clean("/"+p)), true
	}
	var probeErrs []string
	for _, m := range mounts {
		if !m.v2 {
			continue
		}
		dir, ok := parentOf(m, "")
		if !ok {
			continue
		}
		if err := enableV2(dir); err != nil {
			probeErrs = append(probeErrs, err.Error())
			continue
		}
		h := hierarchy{parent: dir, v2: true, memory: true, pids: true}
		if err := probe(h); err != nil {
			probeErrs = append(probeErrs, err.Error())
			continue
		}
		return &cgroups{hierarchies: []hierarchy{h}}, nil
	}
	c := &cgroups{}
	for _, ctrl := range []string{"memory", "pids"} {
		for _, m := range mounts {
			if m.v2 || !m.options[ctrl] {
				continue
			}
			dir, ok := parentOf(m, ctrl)
			if !ok {
				continue
			}
			h := hierarchy{parent: dir, memory: ctrl == "memory", pids: ctrl == "pids"}
			if err := probe(h); err != nil {
				probeErrs = append(probeErrs, err.Error())
				continue
			}
			c.hierarchies = append(c.hierarchies, h)
			break
		}
	}
	if len(c.hierarchies) == 0 {
		return nil, errors.Errorf(errors.Unsupported, "no usable cgroup with the memory or pids controller (%s)", strings.Join(probeErrs, "; "))
	}
	return c, nil
}

// cgroupMounts lists the cgroup file systems of this process's mount
// namespace.
func cgroupMounts() ([]mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, errors.E(errors.Unsupported, err)
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(tail) < 3 {
			continue
		}
		m := mount{root: fields[3], dir: fields[4], options: map[string]bool{}}
		switch tail[0] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			for _, o := range strings.Split(tail[2], ",") {
				m.options[o] = true
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// ownCgroups maps each v1 controller ("memory", "pids") and "" (v2) to this
// process's cgroup path.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, errors.E(errors.Unsupported, err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// enableV2 makes sure the children of dir get the memory and pids
// controllers.
func enableV2(dir string) error {
	have, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return fmt.Errorf("cgroup v2 %s: %w", dir, err)
	}
	fields := strings.Fields(string(have))
	var missing []string
	for _, c := range []string{"memory", "pids"} {
		if !contains(fields, c) {
			missing = append(missing, "+"+c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(strings.Join(missing, " ")), 0); err != nil {
		return fmt.Errorf("cgroup v2 %s: enable %s: %w", dir, strings.Join(missing, " "), err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// probe creates a cgroup under h, sets a limit in it and removes it.
func probe(h hierarchy) error {
	dir := filepath.Join(h.parent, fmt.Sprintf("toolruntime-probe-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: %w", h.version(), h.parent, err)
	}
	defer os.Remove(dir)
	if err := h.setLimits(dir, 64<<20, 64); err != nil {
		return fmt.Errorf("%s %s: %w", h.version(), h.parent, err)
	}
	return nil
}

// setLimits writes the memory and pids limits in the cgroup dir.
func (h hierarchy) setLimits(dir string, memory int64, pids int) error {
	write := func(file string, v int64) error {
		return os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0)
	}
	if h.memory {
		if h.v2 {
			if err := write("memory.max", memory); err != nil {
				return err
			}
			// Not an escape by swap; absent when the kernel has no swap
			// accounting.
			_ = write("memory.swap.max", 0)
		} else {
			if err := write("memory.limit_in_bytes", memory); err != nil {
				return err
			}
			_ = write("memory.memsw.limit_in_bytes", memory)
		}
	}
	if h.pids {
		if err := write("pids.max", int64(pids)); err != nil {
			return err
		}
	}
	return nil
}

// group is the cgroup of one execution: one directory per hierarchy.
type group struct {
	dirs []string
	hs   []hierarchy
}

// newGroup creates the cgroups of one execution, named name, with limits.
func (c *cgroups) newGroup(name string, memory int64, pids int) (*group, error) {
	g := &group{}
	for _, h := range c.hierarchies {
		dir := filepath.Join(h.parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			g.remove()
			return nil, errors.Errorf(errors.Internal, "create %s: %v", dir, err)
		}
		g.dirs, g.hs = append(g.dirs, dir), append(g.hs, h)
		if err := h.setLimits(dir, memory, pids); err != nil {
			g.remove()
			return nil, errors.Errorf(errors.Internal, "limit %s: %v", dir, err)
		}
	}
	return g, nil
}

// add moves the process pid (all its threads) into every cgroup of g.
func (g *group) add(pid int) error {
	for _, dir := range g.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return errors.Errorf(errors.Internal, "add process %d to %s: %v", pid, dir, err)
		}
	}
	return nil
}

// counter returns the value of key in the flat-keyed file of dir, or 0.
func counter(dir, file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// oomKilled reports whether the kernel killed a process of g for memory.
func (g *group) oomKilled() bool {
	for i, h := range g.hs {
		if !h.memory {
			continue
		}
		if h.v2 {
			return counter(g.dirs[i], "memory.events", "oom_kill") > 0
		}
		return counter(g.dirs[i], "memory.oom_control", "oom_kill") > 0
	}
	return false
}

// pidsRefused reports whether g refused a fork at its pids limit.
func (g *group) pidsRefused() bool {
	for i, h := range g.hs {
		if h.pids {
			return counter(g.dirs[i], "pids.events", "max") > 0
		}
	}
	return false
}

// procs lists the processes left in g.
func (g *group) procs() []int {
	var out []int
	for _, dir := range g.dirs {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// kill kills every process of g: the processes of a sandbox are in its
// cgroup even when they left the process group.
func (g *group) kill() {
	for _, pid := range g.procs() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// remove kills what is left in g and removes its cgroups. A cgroup whose
// last process is still exiting cannot be removed at once: it retries for
// a moment.
func (g *group) remove() {
	for _, dir := range g.dirs {
		for try := 0; ; try++ {
			err := os.Remove(dir)
			if err == nil || os.IsNotExist(err) || try == 200 {
				break
			}
			g.kill()
			time.Sleep(time.Millisecond)
		}
	}
}

package process

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime"
)

// warmStartTimeout bounds the start of a process started ahead: a runner
// that never says it is ready must not hold its pool's filling for ever.
const warmStartTimeout = 30 * time.Second

// pool holds the processes started ahead for one set of limits. Its
// fields are guarded by the backend's mu.
type pool struct {
	limits toolruntime.Limits
	ready  []*execution // started, ready, in the order they were started
	// filling says that a goroutine is starting processes for the pool;
	// it ends once the pool is full.
	filling bool
	evicted bool
	used    uint64 // the backend's take count when last taken from
	err     error  // why the last start failed, nil after a success
	// changed is closed, and replaced, whenever the pool gains a process
	// or its filling stops.
	changed chan struct{}
}

func (p *pool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// take returns a process ready for an execution under l: one started
// ahead when the pool of l has one, or the one the pool is starting when
// it is filling (it is further along than a process started now, and two
// starts at once would slow each other down), else one started now. It
// refills the pool in the background.
func (b *Backend) take(ctx context.Context, l toolruntime.Limits) (*execution, error) {
	for {
		e, filling, err := b.takeWarm(l)
		if err != nil || e != nil {
			return e, err
		}
		if filling == nil {
			return b.start(ctx, l)
		}
		select {
		case <-filling:
		case <-ctx.Done():
			return nil, errors.FromContext(ctx, "process.Run", context.Cause(ctx))
		}
	}
}

// takeWarm takes a live process from the pool of l, if there is one. When
// there is none but the pool is filling, filling is closed once that
// changes.
func (b *Backend) takeWarm(l toolruntime.Limits) (e *execution, filling <-chan struct{}, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, nil, errors.Errorf(errors.Unavailable, "process backend closed")
	}
	if b.warm == 0 {
		return nil, nil, nil
	}
	p := b.poolLocked(l)
	b.used++
	p.used = b.used
	for len(p.ready) > 0 && e == nil {
		e, p.ready = p.ready[0], p.ready[1:]
		if !e.idle() {
			// It ended while it waited, or wrote what it should not
			// have: it is not used, and not waited for here.
			b.stopLocked(e)
			e = nil
		}
	}
	if e == nil && p.filling {
		return nil, p.changed, nil
	}
	return e, nil, nil
}

// refill fills the pool of l in the background, if it has one.
func (b *Backend) refill(l toolruntime.Limits) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.pools[l]; ok {
		b.fillLocked(p)
	}
}

// background runs f on a goroutine that Close waits for, and reports
// whether it did: not after Close.
func (b *Backend) background(f func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.filling.Add(1)
	go func() {
		defer b.filling.Done()
		f()
	}()
	return true
}

// stopLocked stops e in the background, counted in b.filling so that Close
// waits for it; b.mu is held.
func (b *Backend) stopLocked(e *execution) {
	b.filling.Add(1)
	go func() {
		defer b.filling.Done()
		e.stop()
	}()
}

// poolLocked returns the pool of l, made (and the pool used least
// recently evicted beyond [MaxWarmLimits]) when there is none; b.mu is
// held.
func (b *Backend) poolLocked(l toolruntime.Limits) *pool {
	if p, ok := b.pools[l]; ok {
		return p
	}
	if len(b.pools) >= MaxWarmLimits {
		var oldest *pool
		for _, p := range b.pools {
			if oldest == nil || p.used < oldest.used {
				oldest = p
			}
		}
		b.evictLocked(oldest)
	}
	p := &pool{limits: l, changed: make(chan struct{})}
	b.pools[l] = p
	return p
}

// evictLocked removes p and stops its processes in the background; b.mu
// is held.
func (b *Backend) evictLocked(p *pool) {
	delete(b.pools, p.limits)
	p.evicted = true
	for _, e := range p.ready {
		b.stopLocked(e)
	}
	p.ready = nil
	p.signal()
}

// fillLocked starts the goroutine that fills p, unless it runs or p is
// full; b.mu is held.
func (b *Backend) fillLocked(p *pool) {
	if b.closed || p.evicted || p.filling || len(p.ready) >= b.warm {
		return
	}
	p.filling = true
	b.filling.Add(1)
	go b.fill(p)
}

// fill starts processes for p until it is full, the backend closes or a
// start fails (the next take tries again: a start that fails costs each
// execution one attempt at most, never a loop). One process starts at a
// time, so that a pool being filled takes one core at most.
func (b *Backend) fill(p *pool) {
	defer b.filling.Done()
	for {
		ctx, cancel := context.WithTimeout(b.warmCtx, warmStartTimeout)
		e, err := b.start(ctx, p.limits)
		cancel() // a start that failed stopped its process itself
		b.mu.Lock()
		switch {
		case err != nil:
			p.err = err
		case b.closed || p.evicted:
			b.mu.Unlock()
			e.stop()
			b.mu.Lock()
		default:
			p.err = nil
			p.ready = append(p.ready, e)
		}
		if err != nil || b.closed || p.evicted || len(p.ready) >= b.warm {
			p.filling = false
			p.signal()
			b.mu.Unlock()
			return
		}
		p.signal()
		b.mu.Unlock()
	}
}

// idle reports whether a process started ahead still waits for its
// execution: the process the backend started (bubblewrap, or the runner)
// has not ended, it has written nothing since its ready notification, and
// its stdout is still open (a runner that ended closed it).
func (e *execution) idle() bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(e.cmd.Process.Pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) state ...": comm may hold anything, the state follows
	// its last parenthesis.
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
		return false
	}
	conn, err := e.stdout.SyscallConn()
	if err != nil {
		return false
	}
	idle := false
	_ = conn.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		idle = err == nil && n == 0
	})
	return idle
}

// Warm fills the pool of processes started ahead for l ([WithSpares]) and
// waits until it is full: a host that knows the limits of its programs
// (those of its [toolruntime.Runtime]) calls it at its start, so that even
// its first execution finds a process ready. It returns the error of the
// last start when one failed, the context's error when ctx ends first,
// and an error of code [errors.Unavailable] after [Backend.Close]. With
// WithSpares(0) it returns at once.
func (b *Backend) Warm(ctx context.Context, l toolruntime.Limits) error {
	if err := l.Validate(); err != nil {
		return errors.WithOp("process.Warm", err)
	}
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return errors.Opf("process.Warm", errors.Unavailable, "process backend closed")
		}
		if b.warm == 0 {
			b.mu.Unlock()
			return nil
		}
		p := b.poolLocked(l)
		if len(p.ready) >= b.warm {
			b.mu.Unlock()
			return nil
		}
		if !p.filling && p.err != nil {
			err := p.err
			p.err = nil // the next call tries again
			b.mu.Unlock()
			return errors.WithOp("process.Warm", err)
		}
		b.fillLocked(p)
		changed := p.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return errors.FromContext(ctx, "process.Warm", context.Cause(ctx))
		}
	}
}

// Close stops the processes started ahead, and those being started, and
// waits until they are gone (killed, reaped, their cgroups and
// directories removed). Executions under way run to their end; Run and
// Warm fail afterwards. ctx bounds the wait: when it ends first, Close
// returns its error and the processes end in the background. Close may
// be called more than once.
func (b *Backend) Close(ctx context.Context) error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.stopWarm()
		for _, p := range b.pools {
			b.evictLocked(p)
		}
	}
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		b.filling.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.FromContext(ctx, "process.Close", context.Cause(ctx))
	}
}

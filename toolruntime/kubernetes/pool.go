package kubernetes

import (
	"context"
	"sync"
	"time"

	"github.com/metatools-go/metatools/toolruntime"
)

// poolRetry is the pause after a pool pod could not be created, before
// the next attempt.
const poolRetry = 5 * time.Second

// poolMaxAge is the age past which a pool pod is not handed out but
// replaced: its activeDeadlineSeconds ends it at defaultDeadline.
const poolMaxAge = defaultDeadline - 10*time.Minute

// pool keeps pods started ahead with toolruntime.DefaultLimits.
type pool struct {
	b      *Backend
	limits toolruntime.Limits
	ready  chan warmPod
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	mu      sync.Mutex
	waiting map[string]bool // pods created and not handed out
}

type warmPod struct {
	name    string
	created time.Time
}

// newPool starts n fillers, each keeping one pod ready.
func newPool(b *Backend, n int) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pool{b: b, limits: toolruntime.DefaultLimits, ready: make(chan warmPod, n), ctx: ctx, cancel: cancel, waiting: map[string]bool{}}
	for range n {
		p.refill()
	}
	return p
}

// refill creates one pool pod in the background.
func (p *pool) refill() {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			name := podName()
			pod := p.b.podFor(name, p.limits, 0)
			pod.Labels[labelPool] = "true"
			p.mu.Lock()
			p.waiting[name] = true
			p.mu.Unlock()
			err := p.b.createPod(p.ctx, pod)
			if err == nil {
				select {
				case p.ready <- warmPod{name: name, created: time.Now()}:
				case <-p.ctx.Done():
					// close deletes it.
				}
				return
			}
			if p.ctx.Err() != nil {
				// The pod may exist all the same: close deletes it.
				return
			}
			p.forget(name)
			t := time.NewTimer(poolRetry)
			select {
			case <-t.C:
			case <-p.ctx.Done():
				t.Stop()
				return
			}
		}
	}()
}

// take returns the name of a pool pod for an execution under l, or ""
// when l is not the pool's limits or no pod is ready; a pod taken is
// replaced in the background.
func (p *pool) take(l toolruntime.Limits) string {
	if l != p.limits || p.ctx.Err() != nil {
		return ""
	}
	for {
		select {
		case w := <-p.ready:
			p.forget(w.name)
			p.refill()
			if time.Since(w.created) > poolMaxAge {
				p.b.deletePod(p.ctx, w.name)
				continue
			}
			return w.name
		default:
			return ""
		}
	}
}

// forget removes name from the pods close deletes.
func (p *pool) forget(name string) {
	p.mu.Lock()
	delete(p.waiting, name)
	p.mu.Unlock()
}

// close stops the fillers and deletes the pool's pods that no execution
// took, including one whose creation was under way as the pool closed.
func (p *pool) close() error {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		for name := range p.waiting {
			p.b.deletePod(p.ctx, name)
		}
		p.waiting = map[string]bool{}
	})
	return nil
}

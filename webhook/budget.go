package webhook

import (
	"context"
	"sync"
	"time"
)

// byteBudget bounds the bytes of request bodies being read at once, before
// their signatures can be checked: anyone may send them. It has two pools,
// so that GitHub's usual deliveries (a few KiB to a few hundred) never wait
// behind large bodies: bodies under smallBody bytes draw on the small pool
// first (then on the large one), larger bodies on the large pool only.
//
// A request that cannot get its bytes within the wait is refused (503 with
// Retry-After): GitHub records the delivery as failed and it can be
// redelivered.
type byteBudget struct {
	mu    sync.Mutex
	small int64 // bytes left in the small pool
	large int64 // bytes left in the large pool
	// changed is closed, and replaced, whenever bytes are given back.
	changed chan struct{}
}

// smallBody is the size under which a body counts as small: GitHub's
// deliveries are almost all well under it.
const smallBody = 1 << 20

func newByteBudget(small, large int64) *byteBudget {
	return &byteBudget{small: small, large: large, changed: make(chan struct{})}
}

// grant is bytes taken from the pools, given back by release.
type grant struct {
	b            *byteBudget
	small, large int64
}

// acquire takes n bytes for a body of size bytes (which picks the pool: a
// body grows in steps, and a large body's first steps are still large),
// waiting at most wait (or until ctx ends) for them. ok is false when they
// could not be had in time.
func (b *byteBudget) acquire(ctx context.Context, n, size int64, wait time.Duration) (g grant, ok bool) {
	var timer *time.Timer
	for {
		b.mu.Lock()
		if g, ok := b.take(n, size); ok {
			b.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return g, true
		}
		changed := b.changed
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-changed:
		case <-timer.C:
			return grant{}, false
		case <-ctx.Done():
			return grant{}, false
		}
	}
}

// take takes n bytes for a body of size bytes if the pools have them;
// b.mu is held.
func (b *byteBudget) take(n, size int64) (grant, bool) {
	if size < smallBody {
		if n <= b.small {
			b.small -= n
			return grant{b: b, small: n}, true
		}
		if n <= b.small+b.large {
			g := grant{b: b, small: b.small, large: n - b.small}
			b.small, b.large = 0, b.large-g.large
			return g, true
		}
		return grant{}, false
	}
	if n <= b.large {
		b.large -= n
		return grant{b: b, large: n}, true
	}
	return grant{}, false
}

// release gives the bytes back; safe on a zero grant and to call twice.
func (g *grant) release() {
	if g.b == nil {
		return
	}
	b := g.b
	b.mu.Lock()
	b.small += g.small
	b.large += g.large
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
	*g = grant{}
}

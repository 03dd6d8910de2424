package pipeline

import (
	"sync"
	"unsafe"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// streamBudget bounds the added text (and line records) the streaming
// readers of the diff (the placeholder Prescan, the secretStream) hold at
// once: the diff's reader waits before it hands them a file that would go
// over it, until they are done with earlier ones. One file is always let
// through, however large, so peak memory is bounded by this budget plus
// the largest file's added lines, not by the pull request's size (issue
// 25), and a reader busy on a big file holds the diff back instead of
// letting the queue grow behind it.
const streamBudget = 4 << 20

// addedHold counts the added text the streaming readers hold: take before
// a file goes to its readers, done once each of them is finished with it
// (the last one to finish releases it).
type addedHold struct {
	mu    sync.Mutex
	cond  sync.Cond
	max   int64
	held  int64
	peak  int64 // the most held at once, for tests
	files map[*changeset.File]holding
}

type holding struct {
	readers int
	weight  int64
}

func newAddedHold(max int64) *addedHold {
	h := &addedHold{max: max, files: map[*changeset.File]holding{}}
	h.cond.L = &h.mu
	return h
}

// addedWeight is what f's added lines take in memory, about: their text
// and their records.
func addedWeight(f *changeset.File) int64 {
	n := int64(len(f.Added)) * int64(unsafe.Sizeof(changeset.AddedLine{}))
	for _, l := range f.Added {
		n += int64(len(l.Text))
	}
	return n
}

// take waits until f's added lines fit in the budget (or nothing else is
// held), then counts them as held by readers readers.
func (h *addedHold) take(f *changeset.File, readers int) {
	if readers == 0 {
		return
	}
	w := addedWeight(f)
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.held > 0 && h.held+w > h.max {
		h.cond.Wait()
	}
	h.held += w
	h.peak = max(h.peak, h.held)
	h.files[f] = holding{readers: readers, weight: w}
}

// done says one reader is finished with f; the last one releases it. A
// file not taken is ignored.
func (h *addedHold) done(f *changeset.File) {
	h.mu.Lock()
	defer h.mu.Unlock()
	x, ok := h.files[f]
	if !ok {
		return
	}
	if x.readers > 1 {
		x.readers--
		h.files[f] = x
		return
	}
	delete(h.files, f)
	h.held -= x.weight
	h.cond.Broadcast()
}

package webhook

import (
	"container/list"
	"sync"
	"time"
)

// queue holds the jobs waiting for a worker, in arrival order, and the keys
// of the running ones. Workers take the first waiting job whose key is not
// running, so two jobs with one key never run at once and a job whose key
// is busy does not hold up the others behind it.
//
// Coalescing: when a Coalesce job arrives while a Coalesce job with the
// same key waits, the new job takes the waiting one's place in the line
// (it keeps the older job's position, so a pull request pushed to again and
// again is not starved by the pushes) and the older job is superseded: it
// never runs (see supersedes for the exception, and older for a
// pull_request delivery that arrives after a newer one). A job that is
// already running is never superseded; the new one waits for it.
//
// One push, one evaluation: GitHub sends pull_request synchronize and
// check_suite requested for every push to a pull request. Whichever is
// queued first is remembered (by key and head SHA, for sameCommitTTL);
// the other is answered 200 and not queued (pushKind).
type queue struct {
	mu   sync.Mutex
	cond *sync.Cond

	size    int
	waiting *list.List               // of *Job, oldest first
	latest  map[string]*list.Element // key → its waiting Coalesce job
	running map[string]bool          // keys of the running jobs
	seen    *lru                     // delivery ids queued so far
	pushes  *ttlMap                  // key NUL head SHA → the push delivery queued for it (pushKind)

	started, closing bool

	// depthGauge and runningGauge, when set, follow the queue's state.
	depthGauge, runningGauge interface{ Set(float64) }
}

func newQueue(size, dedupe int) *queue {
	q := &queue{
		size:    size,
		waiting: list.New(),
		latest:  map[string]*list.Element{},
		running: map[string]bool{},
		seen:    newLRU(dedupe),
		pushes:  newTTLMap(dedupe, sameCommitTTL),
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// offerResult says what offer did with a job.
type offerResult int

const (
	offerQueued     offerResult = iota // waiting for a worker
	offerDuplicate                     // its delivery id was queued before
	offerFull                          // QueueSize jobs already wait
	offerClosing                       // Shutdown has begun
	offerStale                         // older than the waiting job of its key: dropped as superseded
	offerSameCommit                    // the other delivery of the same push was queued (sameCommitTTL)
)

// offerOutcome is what offer did, with the jobs it concerns.
type offerOutcome struct {
	res offerResult
	// superseded is the waiting job a queued job replaced, if any.
	superseded *Job
	// by is, for offerStale, the newer waiting job; for offerSameCommit,
	// the delivery queued for the same commit.
	by *Job
}

// offer queues j unless the server is shutting down, its delivery was
// queued before, the other delivery of the same push was queued
// (pushKind), a newer delivery for its pull request waits, or the queue is
// full. Only a queued (or stale) job's delivery id is remembered, so a
// refused delivery is accepted when GitHub sends it again. now stamps the
// push memory.
//
// Ordering: a pull_request job replaces a waiting job of its key only when
// it is not older than it: when either has no Updated, or j.Updated is not
// before the waiting one's. An older one (a late or redelivered
// synchronize of an earlier head) is dropped as superseded instead: its
// head is no longer the pull request's, and the waiting job evaluates the
// newer one.
func (q *queue) offer(j Job, now time.Time) offerOutcome {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closing:
		return offerOutcome{res: offerClosing}
	case q.seen.contains(j.Delivery):
		return offerOutcome{res: offerDuplicate}
	}
	kind := pushKind(j)
	if kind != "" {
		if e := q.pushes.get(j.Key+"\x00"+j.HeadSHA, now); e != nil && e.kind != kind {
			return offerOutcome{res: offerSameCommit, by: &Job{Delivery: e.delivery, Event: e.kind, Key: j.Key, HeadSHA: j.HeadSHA}}
		}
	}
	var keep bool // a Coalesce job queued beside the waiting one, not over it
	if j.Coalesce {
		if el, ok := q.latest[j.Key]; ok {
			old := el.Value.(*Job)
			switch {
			case older(&j, old):
				q.seen.add(j.Delivery)
				return offerOutcome{res: offerStale, by: old}
			case supersedes(&j, old):
				// Nothing new can run: no worker needs waking.
				el.Value = &j
				q.remember(j, kind, now)
				return offerOutcome{res: offerQueued, superseded: old}
			}
			keep = true
		}
	}
	if q.waiting.Len() >= q.size {
		return offerOutcome{res: offerFull}
	}
	el := q.waiting.PushBack(&j)
	if j.Coalesce && !keep {
		q.latest[j.Key] = el
	}
	q.remember(j, kind, now)
	q.setGauges()
	q.cond.Signal() // one new job: one idle worker is enough
	return offerOutcome{res: offerQueued}
}

// remember records a queued job's delivery id and, for the deliveries of
// a push, its commit. It runs with q.mu held.
func (q *queue) remember(j Job, kind string, now time.Time) {
	q.seen.add(j.Delivery)
	if kind != "" {
		q.pushes.put(j.Key+"\x00"+j.HeadSHA, pushEntry{kind: kind, delivery: j.Delivery}, now)
	}
}

// supersedes reports whether the Coalesce job j makes the waiting Coalesce
// job old, which has the same key, pointless: when both are for the same
// head SHA, or when j is a pull_request delivery (it carries the pull
// request's head as of now, so an evaluation of an older head is stale;
// older rules out the late ones). A check_suite or check_run re-requested
// for another commit than the one waiting (a re-run of an older head) must
// not cancel the evaluation of a newer push: it queues behind it instead,
// and later deliveries coalesce with the older waiting job only.
func supersedes(j, old *Job) bool {
	return j.HeadSHA == old.HeadSHA || j.Event == "pull_request"
}

// older reports whether j, a pull_request job, is older than the waiting
// job old of its key: both carry the pull request's updated_at and j's is
// before old's. Without both times nothing is older (arrival order rules).
func older(j, old *Job) bool {
	return j.Event == "pull_request" && old.Event == "pull_request" &&
		!j.Updated.IsZero() && !old.Updated.IsZero() && j.Updated.Before(old.Updated)
}

// pushKind is the kind of a job that GitHub sends twice for every push,
// once as each kind, "" for the others: "pull_request" for pull_request
// opened, synchronize and reopened, "check_suite" for check_suite
// requested. Re-runs (check_suite or check_run rerequested, comment
// commands) and other pull_request actions (edited with a new base,
// ready_for_review, labels) are never suppressed.
func pushKind(j Job) string {
	switch {
	case j.Event == "pull_request" && (j.Action == "opened" || j.Action == "synchronize" || j.Action == "reopened"):
		return "pull_request"
	case j.Event == "check_suite" && j.Action == "requested":
		return "check_suite"
	}
	return ""
}

// duplicate reports whether a job for this delivery id was queued before.
func (q *queue) duplicate(delivery string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.seen.contains(delivery)
}

// next blocks until a job can run and marks its key running. ok is false
// when the queue is closing and nothing waits: the worker should return.
func (q *queue) next() (j Job, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for el := q.waiting.Front(); el != nil; el = el.Next() {
			job := el.Value.(*Job)
			if q.running[job.Key] {
				continue
			}
			q.waiting.Remove(el)
			if q.latest[job.Key] == el {
				delete(q.latest, job.Key)
			}
			q.running[job.Key] = true
			q.setGauges()
			return *job, true
		}
		if q.closing && q.waiting.Len() == 0 {
			return Job{}, false
		}
		q.cond.Wait()
	}
}

// finish marks key as no longer running. The worker that calls it takes
// the next job itself, which may be the one key was holding up, so only
// during shutdown are the idle workers woken (to return once nothing
// waits).
func (q *queue) finish(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.running, key)
	q.setGauges()
	if q.closing {
		q.cond.Broadcast()
	}
}

// drain removes and returns every waiting job.
func (q *queue) drain() []Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	var jobs []Job
	for el := q.waiting.Front(); el != nil; el = el.Next() {
		jobs = append(jobs, *el.Value.(*Job))
	}
	q.waiting.Init()
	clear(q.latest)
	q.setGauges()
	q.cond.Broadcast()
	return jobs
}

// start marks the workers started; false if they were, or if the queue is
// closing.
func (q *queue) start() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started || q.closing {
		return false
	}
	q.started = true
	return true
}

// close refuses new jobs from now on and wakes the idle workers so that
// they return once nothing waits. It reports whether workers were started.
func (q *queue) close() (started bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closing = true
	q.cond.Broadcast()
	return q.started
}

func (q *queue) state() (started, closing bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.started, q.closing
}

func (q *queue) depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting.Len()
}

func (q *queue) runningCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.running)
}

// setGauges runs with q.mu held.
func (q *queue) setGauges() {
	if q.depthGauge != nil {
		q.depthGauge.Set(float64(q.waiting.Len()))
	}
	if q.runningGauge != nil {
		q.runningGauge.Set(float64(len(q.running)))
	}
}

// lru is a bounded set of strings that forgets the least recently added or
// looked-up one when full. Not safe for concurrent use: queue.mu guards it.
type lru struct {
	max   int
	order *list.List // of string, most recent first
	items map[string]*list.Element
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru) contains(k string) bool {
	el, ok := c.items[k]
	if ok {
		c.order.MoveToFront(el)
	}
	return ok
}

func (c *lru) add(k string) {
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(k)
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(string))
	}
}

// sameCommitTTL is how long the delivery queued for a push is remembered
// to answer the other delivery of the same push (pushKind). GitHub sends
// both within seconds; a re-run later is a rerequest, never suppressed.
const sameCommitTTL = 10 * time.Minute

// ttlMap is a bounded map whose entries expire: get ignores (and drops)
// an entry older than ttl, and put forgets the least recently put entry
// when full. Not safe for concurrent use: queue.mu guards it.
type ttlMap struct {
	max   int
	ttl   time.Duration
	order *list.List // of *ttlEntry, most recent first
	items map[string]*list.Element
}

type pushEntry struct{ kind, delivery string }

type ttlEntry struct {
	key string
	at  time.Time
	val pushEntry
}

func newTTLMap(max int, ttl time.Duration) *ttlMap {
	return &ttlMap{max: max, ttl: ttl, order: list.New(), items: map[string]*list.Element{}}
}

func (m *ttlMap) get(k string, now time.Time) *pushEntry {
	el, ok := m.items[k]
	if !ok {
		return nil
	}
	e := el.Value.(*ttlEntry)
	if now.Sub(e.at) > m.ttl {
		m.order.Remove(el)
		delete(m.items, k)
		return nil
	}
	return &e.val
}

func (m *ttlMap) put(k string, v pushEntry, now time.Time) {
	if el, ok := m.items[k]; ok {
		m.order.Remove(el)
	}
	m.items[k] = m.order.PushFront(&ttlEntry{key: k, at: now, val: v})
	for m.order.Len() > m.max {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.items, old.Value.(*ttlEntry).key)
	}
}

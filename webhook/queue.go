package webhook

import (
	"container/list"
	"sync"
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
// never runs (see supersedes for the one exception). A job that is already
// running is never superseded; the new one waits for it.
type queue struct {
	mu   sync.Mutex
	cond *sync.Cond

	size    int
	waiting *list.List               // of *Job, oldest first
	latest  map[string]*list.Element // key → its waiting Coalesce job
	running map[string]bool          // keys of the running jobs
	seen    *lru                     // delivery ids queued so far

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
	}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// offerResult says what offer did with a job.
type offerResult int

const (
	offerQueued    offerResult = iota // waiting for a worker
	offerDuplicate                    // its delivery id was queued before
	offerFull                         // QueueSize jobs already wait
	offerClosing                      // Shutdown has begun
)

// offer queues j unless the server is shutting down, its delivery was
// queued before, or the queue is full. Only a queued job's delivery id is
// remembered, so a refused delivery is accepted when GitHub sends it again.
// superseded is the waiting job that j replaced, if any.
func (q *queue) offer(j Job) (res offerResult, superseded *Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.closing:
		return offerClosing, nil
	case q.seen.contains(j.Delivery):
		return offerDuplicate, nil
	}
	var keep bool // a Coalesce job queued beside the waiting one, not over it
	if j.Coalesce {
		if el, ok := q.latest[j.Key]; ok {
			old := el.Value.(*Job)
			if supersedes(&j, old) {
				// Nothing new can run: no worker needs waking.
				el.Value = &j
				q.seen.add(j.Delivery)
				return offerQueued, old
			}
			keep = true
		}
	}
	if q.waiting.Len() >= q.size {
		return offerFull, nil
	}
	el := q.waiting.PushBack(&j)
	if j.Coalesce && !keep {
		q.latest[j.Key] = el
	}
	q.seen.add(j.Delivery)
	q.setGauges()
	q.cond.Signal() // one new job: one idle worker is enough
	return offerQueued, nil
}

// supersedes reports whether the Coalesce job j makes the waiting Coalesce
// job old, which has the same key, pointless: when both are for the same
// head SHA, or when j is a pull_request delivery (it carries the pull
// request's head as of now, so an evaluation of an older head is stale).
// A check_suite or check_run re-requested for another commit than the one
// waiting (a re-run of an older head) must not cancel the evaluation of a
// newer push: it queues behind it instead, and later deliveries coalesce
// with the older waiting job only.
func supersedes(j, old *Job) bool {
	return j.HeadSHA == old.HeadSHA || j.Event == "pull_request"
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

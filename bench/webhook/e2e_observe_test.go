package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// aggregateName is the name of swarm-gate's aggregate check run.
const aggregateName = "swarm-gate"

// observer wraps the fake GitHub's handler (its API and its git hosting)
// and notes when each head's aggregate check run is completed: the App
// server is configured with the URL of the server that serves the
// observer, so that every check run write goes through it. It also times
// the git requests, which the fake answers by running git upload-pack.
// It sits in the fake's own handler chain rather than in a proxy in front
// of it, so that it adds no second HTTP hop (and its CPU) to every call.
// Safe for concurrent use.
type observer struct {
	next http.Handler

	mu sync.Mutex
	// completed is when the aggregate check run of "owner/name@sha" was
	// first seen completed (the fake answered the write that completed
	// it).
	completed map[string]time.Time
	// notify, when set, is called with the key of each head whose
	// aggregate was completed for the first time.
	notify func(key string, at time.Time)

	apiRequests, gitRequests atomic.Int64
	gitNanos                 atomic.Int64 // wall time of the git requests, summed
}

func newObserver(fake http.Handler) *observer {
	return &observer{next: fake, completed: map[string]time.Time{}}
}

func (o *observer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		start := time.Now()
		o.next.ServeHTTP(w, r)
		o.gitRequests.Add(1)
		o.gitNanos.Add(int64(time.Since(start)))
		return
	}
	o.apiRequests.Add(1)
	if (r.Method != http.MethodPost && r.Method != http.MethodPatch) || !strings.Contains(r.URL.Path, "/check-runs") {
		o.next.ServeHTTP(w, r)
		return
	}
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	o.next.ServeHTTP(rec, r)
	o.note(r, rec)
}

// recorder passes a response through and keeps its status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// checkRunJSON is what the observer reads of a check run response.
type checkRunJSON struct {
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
}

// note reads the check run in the response to a successful create or
// update and notes a completed aggregate.
func (o *observer) note(req *http.Request, rec *recorder) {
	if rec.status >= 300 {
		return
	}
	var cr checkRunJSON
	if json.Unmarshal(rec.body.Bytes(), &cr) != nil || cr.Name != aggregateName || cr.Status != "completed" {
		return
	}
	// /api/v3/repos/{owner}/{repo}/check-runs[/{id}]
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/api/v3/repos/"), "/")
	if len(parts) < 3 {
		return
	}
	key := parts[0] + "/" + parts[1] + "@" + cr.HeadSHA
	now := time.Now()
	o.mu.Lock()
	_, seen := o.completed[key]
	if !seen {
		o.completed[key] = now
	}
	notify := o.notify
	o.mu.Unlock()
	if !seen && notify != nil {
		notify(key, now)
	}
}

// completedAt returns when key's aggregate was first completed.
func (o *observer) completedAt(key string) (time.Time, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.completed[key]
	return t, ok
}

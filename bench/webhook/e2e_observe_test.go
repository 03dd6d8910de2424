package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// aggregateName is the name of swarm-gate's aggregate check run.
const aggregateName = "swarm-gate"

// observer is a reverse proxy in front of the fake GitHub (its API and its
// git hosting) that notes when each head's aggregate check run is
// completed: the App server is configured with the observer's URL, so that
// every check run write goes through it. It also times the git requests,
// which the fake answers by running git http-backend. Safe for concurrent
// use.
type observer struct {
	proxy *httputil.ReverseProxy

	mu sync.Mutex
	// completed is when the aggregate check run of "owner/name@sha" was
	// first seen completed (the response to the write that completed it
	// passed through the proxy).
	completed map[string]time.Time
	// notify, when set, is called with the key of each head whose
	// aggregate was completed for the first time.
	notify func(key string, at time.Time)

	apiRequests, gitRequests atomic.Int64
	gitNanos                 atomic.Int64 // wall time of the git requests, summed
}

func newObserver(fakeWebURL string) (*observer, error) {
	target, err := url.Parse(fakeWebURL)
	if err != nil {
		return nil, err
	}
	o := &observer{completed: map[string]time.Time{}}
	o.proxy = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport: &http.Transport{
			Proxy:               nil,
			MaxIdleConns:        512,
			MaxIdleConnsPerHost: 512,
			IdleConnTimeout:     30 * time.Second,
		},
		ModifyResponse: o.modify,
		FlushInterval:  -1,
	}
	return o, nil
}

func (o *observer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		o.apiRequests.Add(1)
		o.proxy.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	o.proxy.ServeHTTP(w, r)
	o.gitRequests.Add(1)
	o.gitNanos.Add(int64(time.Since(start)))
}

// checkRunJSON is what the observer reads of a check run response.
type checkRunJSON struct {
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
}

// modify reads the check run in the response to a successful create or
// update and notes a completed aggregate.
func (o *observer) modify(resp *http.Response) error {
	req := resp.Request
	if (req.Method != http.MethodPost && req.Method != http.MethodPatch) || resp.StatusCode >= 300 ||
		!strings.Contains(req.URL.Path, "/check-runs") {
		return nil
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	var cr checkRunJSON
	if json.Unmarshal(raw, &cr) != nil || cr.Name != aggregateName || cr.Status != "completed" {
		return nil
	}
	// /api/v3/repos/{owner}/{repo}/check-runs[/{id}]
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, "/api/v3/repos/"), "/")
	if len(parts) < 3 {
		return nil
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
	return nil
}

// completedAt returns when key's aggregate was first completed.
func (o *observer) completedAt(key string) (time.Time, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.completed[key]
	return t, ok
}

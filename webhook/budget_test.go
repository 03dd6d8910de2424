package webhook

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestByteBudget(t *testing.T) {
	const small, large = 4 << 20, 20 << 20
	for _, tc := range []struct {
		name string
		held []int64 // taken first, in order, and kept
		n    int64
		ok   bool
	}{
		{"small body from the small pool", nil, 100 << 10, true},
		{"small body overflows into the large pool", []int64{900 << 10, 900 << 10, 900 << 10, 900 << 10}, 900 << 10, true},
		{"small body while large bodies hold the large pool", []int64{10 << 20, 10 << 20}, 900 << 10, true},
		{"large body never takes the small pool", []int64{10 << 20, 9 << 20}, 2 << 20, false},
		{"large body fits the large pool", []int64{10 << 20}, 10 << 20, true},
		{"nothing left anywhere", []int64{10 << 20, 10 << 20, 900 << 10, 900 << 10, 900 << 10, 900 << 10}, 900 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newByteBudget(small, large)
			for _, n := range tc.held {
				if _, ok := b.acquire(context.Background(), n, n, 0); !ok {
					t.Fatalf("could not take %d bytes to set the case up", n)
				}
			}
			g, ok := b.acquire(context.Background(), tc.n, tc.n, time.Millisecond)
			if ok != tc.ok {
				t.Fatalf("acquire(%d) ok = %v, want %v", tc.n, ok, tc.ok)
			}
			g.release()
			g.release() // a second release gives nothing back twice
			if tc.ok && b.small+b.large != small+large-sum(tc.held) {
				t.Errorf("after release: %d + %d bytes left, want %d", b.small, b.large, small+large-sum(tc.held))
			}
		})
	}
	t.Run("a waiter gets the bytes given back", func(t *testing.T) {
		b := newByteBudget(0, 10)
		g, _ := b.acquire(context.Background(), 10, 10, 0)
		got := make(chan bool)
		go func() {
			_, ok := b.acquire(context.Background(), 10, 10, time.Minute)
			got <- ok
		}()
		g.release()
		if !recv(t, "the waiter", got) {
			t.Error("the waiter did not get the bytes")
		}
	})
}

func sum(ns []int64) (s int64) {
	for _, n := range ns {
		s += n
	}
	return s
}

// slowBody yields n bytes of JSON-ish filler, 64 KiB per read, pausing
// between reads, without holding them in memory.
type slowBody struct {
	left  int64
	pause time.Duration
}

func (s *slowBody) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := int64(min(len(p), 64<<10))
	n = min(n, s.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	s.left -= n
	return int(n), nil
}

// Many large unsigned bodies at once (anyone can send them) are read
// only as far as BodyBudget allows; the others are refused with 503 and
// Retry-After without being read, and the heap stays bounded. GitHub's
// small deliveries sent meanwhile are taken without waiting.
func TestUnsignedBodiesKeepMemoryBounded(t *testing.T) {
	const (
		maxBody = 8 << 20
		budget  = 24 << 20 // 3 MiB for small bodies, 21 for large: two large bodies at once
		senders = 40
	)
	// One address sends everything here, so the per-address limit is off:
	// this is the budget's test (TestIdleConnectionsDoNotStarveIntake has
	// the limit's).
	// BodyTimeout is generous: on a loaded machine 40 senders may take
	// longer than the default 5 s to deliver 8 MiB, and the slow-body
	// timeout (TestSlowBody's) is not what this test is about.
	h := newHarness(t, Config{MaxBody: maxBody, BodyBudget: budget, BodyWait: 200 * time.Millisecond, MaxPerSource: -1, BodyTimeout: time.Minute})
	h.Start()
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	client := srv.Client()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()

	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		codes = map[string]int{}
	)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", &slowBody{left: maxBody, pause: 2 * time.Millisecond})
			req.ContentLength = maxBody
			req.Header.Set(headerEvent, "pull_request")
			req.Header.Set(headerDelivery, fmt.Sprintf("big-%d", i))
			req.Header.Set(headerSignature, "sha256="+strings.Repeat("0", 64))
			resp, err := client.Do(req)
			key := "transport error (the server closed the connection after refusing)"
			if err == nil {
				key = fmt.Sprintf("%d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
				resp.Body.Close()
			}
			mu.Lock()
			codes[key]++
			mu.Unlock()
		}()
	}
	// GitHub's own deliveries meanwhile.
	time.Sleep(50 * time.Millisecond)
	for i := range 5 {
		body := prBody("synchronize", "octo/repo", 10+i, sha(10+i))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(body))
		req.Header.Set(headerEvent, "pull_request")
		req.Header.Set(headerDelivery, fmt.Sprintf("small-%d", i))
		req.Header.Set(headerSignature, sign(testSecret, body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("small delivery %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("small delivery %d during the flood: %d, want 202", i, resp.StatusCode)
		}
	}
	wg.Wait()
	close(stop)
	<-sampled

	grew := int64(peak.Load()) - int64(base)
	t.Logf("%d unsigned %d MiB bodies at once: heap in use grew by %.1f MiB at most; answers %v", senders, maxBody>>20, float64(grew)/(1<<20), codes)
	if limit := int64(4 * budget); grew > limit {
		t.Errorf("heap in use grew by %d MiB, want under %d MiB (the body budget is %d MiB)", grew>>20, limit>>20, budget>>20)
	}
	for k := range codes {
		// 408: a sender starved of CPU on a loaded machine (the race
		// detector, parallel packages) stalls past the body timeout; that
		// is the timeout doing its job, not a refusal to answer.
		if !strings.HasPrefix(k, "401") && !strings.HasPrefix(k, `503 Retry-After "60"`) && !strings.HasPrefix(k, "408") && !strings.HasPrefix(k, "transport error") {
			t.Errorf("answer %s, want 401, 408 (body stalled), or 503 with Retry-After", k)
		}
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="busy"}`); n < 1 {
		t.Errorf("no delivery was refused as busy: %v", codes)
	}
	if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="unauthorized"}`); n < 2 {
		t.Errorf("%v large bodies were read (and refused as unsigned), want at least 2", n)
	}
}

// The buffer is as long as Content-Length: a body that ends early is a
// bad request.
func TestBodyShorterThanContentLength(t *testing.T) {
	h := newHarness(t, Config{})
	body := prBody("synchronize", "octo/repo", 1, sha(1))
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	req.ContentLength = int64(len(body) + 10)
	req.Header.Set(headerEvent, "pull_request")
	req.Header.Set(headerDelivery, "short")
	req.Header.Set(headerSignature, sign(testSecret, body))
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "ended before its Content-Length") {
		t.Errorf("%d %q, want 400 saying the body ended early", rec.Code, rec.Body.String())
	}
}

// New refuses a budget that cannot hold one MaxBody body.
func TestBodyBudgetTooSmall(t *testing.T) {
	_, err := New(Config{Secret: testSecret, Evaluator: EvaluatorFunc(func(context.Context, Job) error { return nil }), MaxBody: 8 << 20, BodyBudget: 8 << 20})
	if err == nil || !strings.Contains(err.Error(), "raise BodyBudget") {
		t.Errorf("New: %v, want an error saying to raise BodyBudget", err)
	}
}

// TestIdleConnectionsDoNotStarveIntake is issue 20 item 2: connections
// that declare a body and send nothing held its Content-Length of the body
// budget for the whole read timeout, so a few dozen of them made every
// genuine delivery get 503. Now a body holds only what has arrived (see
// TestIdleBodiesFromManySourcesHoldNoBudget), a slow body gets 408 after
// BodyTimeout (a stalled one after BodyStallTimeout: TestStalledBody), and
// one address may only have MaxPerSource requests being read.
func TestIdleConnectionsDoNotStarveIntake(t *testing.T) {
	const idle = 40
	h := newHarness(t, Config{MaxBody: 1 << 20, BodyBudget: 8 << 20, BodyWait: 200 * time.Millisecond, BodyTimeout: 2 * time.Second, MaxPerSource: 16})
	h.Start()
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	// open dials from a loopback address of its own (all of 127/8 is
	// local on Linux) and sends a request's headers only.
	open := func(t *testing.T, from string, length int) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Skipf("cannot dial from %s (a loopback alias this machine lacks): %v", from, err)
		}
		fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: swarm-gate\r\nContent-Length: %d\r\nX-GitHub-Event: pull_request\r\nX-GitHub-Delivery: idle\r\n\r\n", length)
		return c
	}
	deliver := func(t *testing.T, n int) int {
		body := prBody("synchronize", "octo/repo", n, sha(n))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(body))
		req.Header.Set(headerEvent, "pull_request")
		req.Header.Set(headerDelivery, fmt.Sprintf("genuine-%d", n))
		req.Header.Set(headerSignature, sign(testSecret, body))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("genuine delivery: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	t.Run("idle connections from many addresses", func(t *testing.T) {
		var conns []net.Conn
		for i := range idle {
			conns = append(conns, open(t, fmt.Sprintf("127.0.1.%d", i+1), 1<<20-1))
		}
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		time.Sleep(100 * time.Millisecond) // every handler is reading its body
		if code := deliver(t, 1); code != http.StatusAccepted {
			t.Fatalf("a signed delivery during %d idle connections got %d, want 202", idle, code)
		}
		// The idle ones are answered 408 once BodyTimeout passes.
		conns[0].SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conns[0]), nil)
		if err != nil || resp.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("an idle connection after BodyTimeout: %v %v, want 408", resp, err)
		}
	})
	t.Run("too many from one address", func(t *testing.T) {
		var conns []net.Conn
		for range 20 {
			conns = append(conns, open(t, "127.0.2.1", 100))
		}
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		// Which 4 are refused depends on arrival order; the other 16 wait
		// for their bodies, past this read's deadline.
		refused := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err == nil && resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "" {
				refused++
			}
		}
		if refused != 4 {
			t.Fatalf("%d of 20 requests from one address refused with 429 and Retry-After, want 4 (MaxPerSource 16)", refused)
		}
		if code := deliver(t, 2); code != http.StatusAccepted {
			t.Fatalf("a signed delivery from another address got %d, want 202", code)
		}
		if n := h.metric(t, `swarm_gate_deliveries_total{event="unknown",outcome="too_many_from_source"}`); n < 4 {
			t.Errorf("%v refusals counted, want at least 4", n)
		}
	})
}

package webhook

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// connTracker bounds the connections open at once that have not yet sent
// a delivery with a valid signature (anyone can open them): when one more
// opens past the cap, the oldest unverified one is closed. Oldest first,
// because GitHub sends a whole delivery at once and is done in
// milliseconds, so a connection still unverified after the others is the
// slowest, not the newest genuine one. A connection counts from when it is
// accepted until a request on it is verified; one that goes idle after a
// verified request counts again, as the newest.
//
// Each source (sourceKey: an IPv4 address, an IPv6 /64) may also hold at
// most perSource of them, its own oldest closed first: without that, one
// address opening thousands of empty connections a second made every other
// connection the oldest within milliseconds, and GitHub's deliveries were
// closed with the churn (issue 20, B4). With it, one source's churn sheds
// only its own connections, and the global cap is left for many sources
// at once.
type connTracker struct {
	max       int // negative: no cap
	perSource int // negative: no cap

	mu       sync.Mutex
	order    *list.List // unverified conns (*trackedConn), oldest first
	at       map[net.Conn]*trackedConn
	bySource map[string]*list.List // each source's unverified conns (*trackedConn), oldest first
	shed     func()                // counts a connection closed for the global cap
	shedSrc  func()                // counts a connection closed for the per-source cap
}

// trackedConn is one unverified connection, in the global order and in its
// source's.
type trackedConn struct {
	c        net.Conn
	src      string
	inOrder  *list.Element
	inSource *list.Element
}

func newConnTracker(max, perSource int, shed, shedSrc func()) *connTracker {
	return &connTracker{max: max, perSource: perSource, order: list.New(), at: map[net.Conn]*trackedConn{},
		bySource: map[string]*list.List{}, shed: shed, shedSrc: shedSrc}
}

// state is http.Server.ConnState.
func (t *connTracker) state(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		t.add(c)
	case http.StateIdle:
		t.mu.Lock()
		_, unverified := t.at[c]
		t.mu.Unlock()
		if !unverified { // verified before, waiting for another request
			t.add(c)
		}
	case http.StateHijacked, http.StateClosed:
		t.verified(c)
	}
}

// add counts c as unverified, the newest, then closes its source's oldest
// while the source has more than perSource, and the oldest of all while
// there are more than max.
func (t *connTracker) add(c net.Conn) {
	var shed, shedSrc []net.Conn
	t.mu.Lock()
	if _, ok := t.at[c]; !ok {
		src := ""
		if a := c.RemoteAddr(); a != nil {
			src = sourceKey(a.String())
		}
		l := t.bySource[src]
		if l == nil {
			l = list.New()
			t.bySource[src] = l
		}
		tc := &trackedConn{c: c, src: src}
		tc.inOrder = t.order.PushBack(tc)
		tc.inSource = l.PushBack(tc)
		t.at[c] = tc
		for t.perSource >= 0 && l.Len() > t.perSource {
			old := l.Front().Value.(*trackedConn)
			t.remove(old)
			shedSrc = append(shedSrc, old.c)
		}
	}
	for t.max >= 0 && t.order.Len() > t.max {
		old := t.order.Front().Value.(*trackedConn)
		t.remove(old)
		shed = append(shed, old.c)
	}
	t.mu.Unlock()
	for _, old := range shedSrc {
		old.Close() // its request, if any, fails to read and ends
		t.shedSrc()
	}
	for _, old := range shed {
		old.Close()
		t.shed()
	}
}

// remove stops counting tc; t.mu is held.
func (t *connTracker) remove(tc *trackedConn) {
	t.order.Remove(tc.inOrder)
	if l := t.bySource[tc.src]; l != nil {
		l.Remove(tc.inSource)
		if l.Len() == 0 {
			delete(t.bySource, tc.src)
		}
	}
	delete(t.at, tc.c)
}

// verified stops counting c (a valid signature arrived on it, or it
// closed).
func (t *connTracker) verified(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tc, ok := t.at[c]; ok {
		t.remove(tc)
	}
}

// unverified is how many connections are counted.
func (t *connTracker) unverified() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
}

// unverifiedFrom is how many connections from the source of remoteAddr
// (sourceKey) are counted.
func (t *connTracker) unverifiedFrom(remoteAddr string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l := t.bySource[sourceKey(remoteAddr)]; l != nil {
		return l.Len()
	}
	return 0
}

type connKey struct{}

// ConnContext is for http.Server.ConnContext: it records the connection in
// its requests' contexts, so that a verified delivery stops counting its
// connection against MaxUnverified. Use it with ConnState (HTTPServer sets
// both).
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// ConnState is for http.Server.ConnState: it counts the connections that
// have not yet sent a verified delivery, closing a source's oldest when it
// has more than MaxUnverifiedPerSource open, and the oldest of all when
// more than MaxUnverified are open.
func (s *Server) ConnState(c net.Conn, st http.ConnState) { s.conns.state(c, st) }

// markVerified stops counting the connection of r (a valid signature).
func (s *Server) markVerified(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		s.conns.verified(c)
	}
}

// HTTPServer is an http.Server for Handler with the intake's limits on
// connections: ReadHeaderTimeout HeaderTimeout, ConnState and ConnContext
// (MaxUnverified, MaxUnverifiedPerSource), a request's whole read bounded by a minute (the handler
// sets tighter deadlines on bodies), an idle keep-alive connection closed
// after two minutes.
// Set its ErrorLog; serve it with Serve(listener).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.cfg.HeaderTimeout, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		ConnState: s.ConnState, ConnContext: s.ConnContext}
}

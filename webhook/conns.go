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
type connTracker struct {
	max int // negative: no cap

	mu    sync.Mutex
	order *list.List // unverified conns (net.Conn), oldest first
	at    map[net.Conn]*list.Element
	shed  func() // counts a closed connection
}

func newConnTracker(max int, shed func()) *connTracker {
	return &connTracker{max: max, order: list.New(), at: map[net.Conn]*list.Element{}, shed: shed}
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

// add counts c as unverified, the newest, and closes the oldest while
// there are more than max.
func (t *connTracker) add(c net.Conn) {
	var shed []net.Conn
	t.mu.Lock()
	if _, ok := t.at[c]; !ok {
		t.at[c] = t.order.PushBack(c)
	}
	for t.max >= 0 && t.order.Len() > t.max {
		old := t.order.Remove(t.order.Front()).(net.Conn)
		delete(t.at, old)
		shed = append(shed, old)
	}
	t.mu.Unlock()
	for _, old := range shed {
		old.Close() // its request, if any, fails to read and ends
		t.shed()
	}
}

// verified stops counting c (a valid signature arrived on it, or it
// closed).
func (t *connTracker) verified(c net.Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.at[c]; ok {
		t.order.Remove(e)
		delete(t.at, c)
	}
}

// unverified is how many connections are counted.
func (t *connTracker) unverified() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
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
// have not yet sent a verified delivery, closing the oldest when more than
// MaxUnverified are open.
func (s *Server) ConnState(c net.Conn, st http.ConnState) { s.conns.state(c, st) }

// markVerified stops counting the connection of r (a valid signature).
func (s *Server) markVerified(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		s.conns.verified(c)
	}
}

// HTTPServer is an http.Server for Handler with the intake's limits on
// connections: ReadHeaderTimeout HeaderTimeout, ConnState and ConnContext
// (MaxUnverified), a request's whole read bounded by a minute (the handler
// sets tighter deadlines on bodies), an idle keep-alive connection closed
// after two minutes.
// Set its ErrorLog; serve it with Serve(listener).
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: s.cfg.HeaderTimeout, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		ConnState: s.ConnState, ConnContext: s.ConnContext}
}

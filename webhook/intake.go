package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Delivery headers GitHub sends.
const (
	headerSignature = "X-Hub-Signature-256"
	headerEvent     = "X-GitHub-Event"
	headerDelivery  = "X-GitHub-Delivery"
)

// maxDeliveryLen bounds X-GitHub-Delivery (a 36-character GUID from
// GitHub), since delivery ids are kept in memory and logged.
const maxDeliveryLen = 128

// serveWebhook takes one delivery, in this order: the method must be POST
// (405); the server must not be shutting down (503); the body must be at
// most MaxBody bytes (413); at most MaxPerSource requests from its source
// may be being read (429); the body must keep arriving (BodyStallTimeout)
// and be in within BodyTimeout (408), with room in BodyBudget for what has
// arrived within BodyWait (503 with Retry-After); X-Hub-Signature-256 must
// match it (401; a valid one stops its connection counting against
// MaxUnverified); X-GitHub-Event and X-GitHub-Delivery must be set (400);
// a delivery id queued before is answered 200 "duplicate"; the payload is
// routed (204 when not acted on, 400 when it lacks what its event needs);
// the job is queued (202), or answered 200 without being queued when it is
// the second delivery of one push or older than the one waiting for its
// pull request, or refused with 503 and Retry-After when the queue is
// full. No evaluation work happens here.
func (s *Server) serveWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.answer(w, "unknown", outcomeMethodNotAllowed, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed: GitHub delivers webhooks with POST")
		return
	}
	if _, closing := s.q.state(); closing {
		s.unavailable(w, "unknown", outcomeShuttingDown, "shutting down: redeliver later")
		return
	}
	if r.ContentLength > s.cfg.MaxBody {
		s.answer(w, "unknown", outcomeTooLarge, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("body of %d bytes is over the %d-byte limit", r.ContentLength, s.cfg.MaxBody))
		return
	}
	leave, ok := s.enterSource(r.RemoteAddr)
	if !ok {
		s.log.Warn("webhook delivery refused: too many requests from one address are being read", "remote", r.RemoteAddr, "max_per_source", s.cfg.MaxPerSource)
		secs := int64(math.Ceil(s.cfg.RetryAfter.Seconds()))
		w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
		w.Header().Set("Connection", "close") // do not wait for the body it may never send
		s.answer(w, "unknown", outcomeTooManyFromSrc, http.StatusTooManyRequests,
			fmt.Sprintf("%d requests from this address are already being read: retry later", s.cfg.MaxPerSource))
		return
	}
	body, g, err := s.readBody(w, r)
	g.release()
	leave()
	if err != nil {
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.Is(err, errStalled):
			s.log.Warn("webhook delivery refused: the body stalled", "remote", r.RemoteAddr, "body_stall_timeout", s.cfg.BodyStallTimeout.String())
			w.Header().Set("Connection", "close")
			s.answer(w, "unknown", outcomeSlowBody, http.StatusRequestTimeout, fmt.Sprintf("no byte of the body arrived within %s (GitHub sends it at once)", s.cfg.BodyStallTimeout))
		case errors.As(err, &netErr) && netErr.Timeout():
			s.log.Warn("webhook delivery refused: the body did not arrive in time", "remote", r.RemoteAddr, "body_timeout", s.cfg.BodyTimeout.String())
			w.Header().Set("Connection", "close")
			s.answer(w, "unknown", outcomeSlowBody, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %s", s.cfg.BodyTimeout))
		case errors.Is(err, errNoBudget):
			s.log.Warn("webhook delivery refused: "+err.Error(), "remote", r.RemoteAddr, "content_length", r.ContentLength)
			w.Header().Set("Connection", "close") // the rest of the body is not read
			s.unavailable(w, "unknown", outcomeBusy, err.Error()+": redeliver later")
		case errors.As(err, &tooBig):
			s.answer(w, "unknown", outcomeTooLarge, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("body is over the %d-byte limit", s.cfg.MaxBody))
		default:
			s.answer(w, "unknown", outcomeBadRequest, http.StatusBadRequest, "reading the body: "+err.Error())
		}
		return
	}
	if reason := checkSignature(s.cfg.Secret, r.Header.Values(headerSignature), body); reason != "" {
		s.log.Warn("webhook delivery refused: "+reason, "remote", r.RemoteAddr, "user_agent", truncate(r.UserAgent(), 100))
		s.answer(w, "unknown", outcomeUnauthorized, http.StatusUnauthorized, reason)
		return
	}
	s.markVerified(r)

	event, delivery := r.Header.Get(headerEvent), r.Header.Get(headerDelivery)
	ev := eventLabel(event)
	switch {
	case event == "":
		s.answer(w, "unknown", outcomeBadRequest, http.StatusBadRequest, "missing "+headerEvent+" header")
		return
	case delivery == "":
		s.answer(w, ev, outcomeBadRequest, http.StatusBadRequest, "missing "+headerDelivery+" header")
		return
	case !validDelivery(delivery):
		s.answer(w, ev, outcomeBadRequest, http.StatusBadRequest,
			fmt.Sprintf("%s is not a delivery id (at most %d printable ASCII characters)", headerDelivery, maxDeliveryLen))
		return
	}
	if s.q.duplicate(delivery) {
		s.duplicate(w, ev, delivery, event)
		return
	}

	d, err := route(event, body)
	if err != nil {
		s.log.Warn("webhook delivery refused: "+err.Error(), "delivery", delivery, "event", event)
		s.answer(w, ev, outcomeBadRequest, http.StatusBadRequest, err.Error())
		return
	}
	if d.note != "" {
		s.log.Info(d.note, append([]any{"delivery", delivery}, d.noteAttrs...)...)
	}
	switch {
	case d.pong:
		s.log.Info("webhook ping", "delivery", delivery)
		s.answer(w, ev, outcomePing, http.StatusOK, "pong")
		return
	case d.job == nil:
		if d.note == "" {
			s.log.Debug("webhook delivery ignored: "+d.ignored, "delivery", delivery, "event", event, "action", d.action)
		}
		s.answer(w, ev, outcomeIgnored, http.StatusNoContent, "")
		return
	}

	j := *d.job
	j.Delivery, j.Payload, j.Received = delivery, body, s.cfg.Now()
	out := s.q.offer(j, j.Received)
	switch out.res {
	case offerDuplicate:
		s.duplicate(w, ev, delivery, event)
	case offerClosing:
		s.unavailable(w, ev, outcomeShuttingDown, "shutting down: redeliver later")
	case offerFull:
		s.log.Warn("webhook queue full: delivery refused with 503", append(jobAttrs(j), "queue_size", s.cfg.QueueSize)...)
		s.unavailable(w, ev, outcomeQueueFull, fmt.Sprintf("queue full (%d jobs waiting): redeliver later", s.cfg.QueueSize))
	case offerStale:
		s.metrics.coalesced.Inc()
		s.log.Info("job not queued: a newer delivery for the pull request waits", append(jobAttrs(j),
			"updated_at", j.Updated.Format(time.RFC3339), "newer_delivery", out.by.Delivery, "newer_head_sha", out.by.HeadSHA,
			"newer_updated_at", out.by.Updated.Format(time.RFC3339))...)
		s.answer(w, ev, outcomeStale, http.StatusOK, fmt.Sprintf("not queued: delivery %s, waiting for the same pull request, is newer (pull_request.updated_at %s, this one %s)",
			out.by.Delivery, out.by.Updated.Format(time.RFC3339), j.Updated.Format(time.RFC3339)))
	case offerSameCommit:
		s.log.Info("job not queued: the other delivery of this push was queued", append(jobAttrs(j), "queued_delivery", out.by.Delivery, "queued_event", out.by.Event)...)
		s.answer(w, ev, outcomeSameCommit, http.StatusOK, "already queued for this commit by delivery "+out.by.Delivery+" ("+out.by.Event+")")
	default:
		attrs := jobAttrs(j)
		msg := "queued"
		if out.superseded != nil {
			s.metrics.coalesced.Inc()
			attrs = append(attrs, "superseded_delivery", out.superseded.Delivery, "superseded_head_sha", out.superseded.HeadSHA)
			msg = "queued, superseding delivery " + out.superseded.Delivery
		}
		s.log.Info("job queued", attrs...)
		s.answer(w, ev, outcomeQueued, http.StatusAccepted, msg)
	}
}

// checkSignature returns why the X-Hub-Signature-256 values do not sign
// body with secret, or "" when they do. The reasons never include the
// expected signature.
func checkSignature(secret []byte, values []string, body []byte) string {
	switch len(values) {
	case 0:
		return "missing " + headerSignature + " header (set the App's webhook secret)"
	case 1:
	default:
		return "more than one " + headerSignature + " header"
	}
	hexSig, ok := strings.CutPrefix(values[0], "sha256=")
	if !ok {
		return headerSignature + " must start with sha256="
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return headerSignature + " is not sha256= and 64 hex digits"
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return headerSignature + " does not match the body (is the webhook secret the App's?)"
	}
	return ""
}

// errNoBudget is why a body was not read: BodyBudget had no room for it
// within BodyWait.
var errNoBudget = errors.New("too many large request bodies are being read at once")

// errStalled is why a body was not read: no byte of it arrived within
// BodyStallTimeout.
var errStalled = errors.New("the body stalled")

// readBody reads the request's body, at most MaxBody bytes (and exactly
// Content-Length when given). Budget is held only for bytes that have
// arrived: each read lands in a small chunk first, and the buffer then
// grows to at most twice what has arrived (never past the body's limit),
// holding that growth of the body budget (given back by g.release, also
// on error). A connection that declares a large body and sends nothing
// holds none. Each read must bring a byte within BodyStallTimeout, and the
// whole body must be in by BodyTimeout. Errors: errNoBudget, errStalled
// (wrapped), an *http.MaxBytesError, a read error (a net.Error timeout
// when BodyTimeout passes).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, g grant, err error) {
	rc := http.NewResponseController(w)
	rd := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	limit, known := s.cfg.MaxBody, r.ContentLength >= 0
	if known {
		limit = r.ContentLength
	}
	whole := time.Now().Add(s.cfg.BodyTimeout)
	// read reads into p, each read bounded by the stall timeout and the
	// whole body's deadline (recorders in tests cannot set deadlines:
	// ignored).
	read := func(p []byte) (int, error) {
		stall := time.Now().Add(s.cfg.BodyStallTimeout)
		_ = rc.SetReadDeadline(minTime(stall, whole))
		n, err := rd.Read(p)
		var netErr net.Error
		if err != nil && errors.As(err, &netErr) && netErr.Timeout() && time.Now().Before(whole) {
			return 0, fmt.Errorf("%w: no byte arrived within %s", errStalled, s.cfg.BodyStallTimeout)
		}
		return n, err
	}
	// The first read lands in a few hundred bytes: an idle connection
	// holds no more than that while it waits.
	var buf []byte
	chunk := make([]byte, firstChunk)
	for {
		if int64(len(buf)) == limit {
			// All of it: one more byte means the body lies about its
			// length, or is over MaxBody.
			n, err := read(chunk[:1])
			switch {
			case n > 0 && known:
				return nil, g, fmt.Errorf("the body is longer than its Content-Length of %d bytes", limit)
			case err != nil && !errors.Is(err, io.EOF):
				return nil, g, err
			}
			return buf, g, nil
		}
		var n int
		if len(buf) < cap(buf) {
			// Room already held: read straight into it.
			n, err = read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		} else {
			if len(buf) > 0 && len(chunk) < bodyChunk {
				chunk = make([]byte, bodyChunk)
			}
			n, err = read(chunk[:min(int64(len(chunk)), limit-int64(len(buf)))])
			if n > 0 {
				have := int64(len(buf) + n)
				next := min(limit, max(2*int64(cap(buf)), 2*have))
				size := next // the body's size as far as known, for the pool
				if known {
					size = limit
				}
				var herr error
				if g, herr = s.hold(r, next-int64(cap(buf)), size, g); herr != nil {
					return nil, g, herr
				}
				grown := make([]byte, len(buf), next)
				copy(grown, buf)
				buf = append(grown, chunk[:n]...)
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			if known && int64(len(buf)) != limit {
				return nil, g, fmt.Errorf("the body ended before its Content-Length of %d bytes", limit)
			}
			return buf, g, nil
		case err != nil:
			return nil, g, err
		}
	}
}

// firstChunk and bodyChunk are the sizes of the chunk a read lands in
// before the buffer grows: the first read's, and the later ones'. Neither
// is taken from the budget: an idle connection holds firstChunk bytes of
// memory and no budget.
const (
	firstChunk = 512
	bodyChunk  = 8 << 10
)

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// sourceKey is the source that MaxPerSource counts for remoteAddr
// ("ip:port", or a bare IP): the IPv4 address (an IPv4-mapped IPv6 address
// counts as its IPv4 form), or the IPv6 address's /64, since one IPv6 host
// usually has a whole /64 to send from. Anything else is used as it is.
func sourceKey(remoteAddr string) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return ip.String()
	}
	return p.String()
}

// enterSource counts one more request being read from the source of
// remoteAddr (sourceKey), refusing it (ok false) when MaxPerSource are;
// leave undoes it.
func (s *Server) enterSource(remoteAddr string) (leave func(), ok bool) {
	if s.cfg.MaxPerSource < 0 {
		return func() {}, true
	}
	ip := sourceKey(remoteAddr)
	s.sourcesMu.Lock()
	defer s.sourcesMu.Unlock()
	if s.sources == nil {
		s.sources = map[string]int{}
	}
	if s.sources[ip] >= s.cfg.MaxPerSource {
		return nil, false
	}
	s.sources[ip]++
	return func() {
		s.sourcesMu.Lock()
		defer s.sourcesMu.Unlock()
		if s.sources[ip]--; s.sources[ip] <= 0 {
			delete(s.sources, ip)
		}
	}, true
}

// hold takes n more bytes of the body budget for a body of size bytes,
// waiting at most BodyWait, adding them to g (whose bytes are kept either
// way).
func (s *Server) hold(r *http.Request, n, size int64, g grant) (grant, error) {
	if n <= 0 {
		return g, nil
	}
	more, ok := s.budget.acquire(r.Context(), n, size, s.cfg.BodyWait)
	if !ok {
		return g, fmt.Errorf("%w (%d-byte body; %d bytes may be read at once, BodyBudget)", errNoBudget, size, s.cfg.BodyBudget)
	}
	if g.b == nil {
		return more, nil
	}
	g.small += more.small
	g.large += more.large
	return g, nil
}

func validDelivery(id string) bool {
	if len(id) > maxDeliveryLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

func (s *Server) duplicate(w http.ResponseWriter, ev, delivery, event string) {
	s.log.Info("webhook delivery is a duplicate: not queued again", "delivery", delivery, "event", event)
	s.answer(w, ev, outcomeDuplicate, http.StatusOK, "duplicate delivery "+delivery+": already received, not queued again")
}

// unavailable answers 503 with Retry-After.
func (s *Server) unavailable(w http.ResponseWriter, ev, outcome, msg string) {
	secs := int64(math.Ceil(s.cfg.RetryAfter.Seconds()))
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	s.answer(w, ev, outcome, http.StatusServiceUnavailable, msg)
}

// answer counts the delivery and writes the response.
func (s *Server) answer(w http.ResponseWriter, ev, outcome string, code int, msg string) {
	s.metrics.deliveries.WithLabelValues(ev, outcome).Inc()
	writeText(w, code, msg)
}

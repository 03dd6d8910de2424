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
// most MaxBody bytes (413), and there must be room in BodyBudget to read it
// within BodyWait (503 with Retry-After); X-Hub-Signature-256 must match it
// (401); X-GitHub-Event and X-GitHub-Delivery must be set (400); a delivery
// id queued before is answered 200 "duplicate"; the payload is routed (204
// when not acted on, 400 when it lacks what its event needs); the job is
// queued (202), or answered 200 without being queued when it is the second
// delivery of one push or older than the one waiting for its pull request,
// or refused with 503 and Retry-After when the queue is full. No evaluation
// work happens here.
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
	// The body must arrive in time: a connection that trickles it holds a
	// slot and budget. Recorders in tests cannot set deadlines (ignored).
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	body, g, err := s.readBody(w, r)
	g.release()
	leave()
	if err != nil {
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
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

// readBody reads the request's body, at most MaxBody bytes (and exactly
// Content-Length when given), into a buffer that grows as bytes arrive,
// holding each step's bytes of the body budget before it is allocated
// (given back by g.release, also on error): a request holds what it has
// sent, plus one step. Errors: errNoBudget, an *http.MaxBytesError, a read
// error (a net.Error timeout when the read deadline passes).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, g grant, err error) {
	rd := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	limit, known := s.cfg.MaxBody, r.ContentLength >= 0
	if known {
		limit = r.ContentLength
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == limit {
				// All of it: one more byte means the body lies about its
				// length, or is over MaxBody.
				var probe [1]byte
				n, err := rd.Read(probe[:])
				switch {
				case n > 0 && known:
					return nil, g, fmt.Errorf("the body is longer than its Content-Length of %d bytes", limit)
				case err != nil && !errors.Is(err, io.EOF):
					return nil, g, err
				}
				return buf, g, nil
			}
			next := min(limit, max(2*int64(cap(buf)), bodyStep))
			size := next // the body's size as far as known, for the pool
			if known {
				size = limit
			}
			if g, err = s.hold(r, next-int64(cap(buf)), size, g); err != nil {
				return nil, g, err
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
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

// bodyStep is the first size of a body's buffer, and its smallest growth.
const bodyStep = 16 << 10

// enterSource counts one more request being read from the address of
// remoteAddr ("ip:port"), refusing it (ok false) when MaxPerSource are;
// leave undoes it.
func (s *Server) enterSource(remoteAddr string) (leave func(), ok bool) {
	if s.cfg.MaxPerSource < 0 {
		return func() {}, true
	}
	ip := remoteAddr
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		ip = host
	}
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

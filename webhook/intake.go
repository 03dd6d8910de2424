package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
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
// most MaxBody bytes (413); X-Hub-Signature-256 must match it (401);
// X-GitHub-Event and X-GitHub-Delivery must be set (400); a delivery id
// queued before is answered 200 "duplicate"; the payload is routed (204
// when not acted on, 400 when it lacks what its event needs); the job is
// queued (202), or refused with 503 and Retry-After when the queue is full.
// No evaluation work happens here.
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
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody), r.ContentLength)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.answer(w, "unknown", outcomeTooLarge, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("body is over the %d-byte limit", s.cfg.MaxBody))
			return
		}
		s.answer(w, "unknown", outcomeBadRequest, http.StatusBadRequest, "reading the body: "+err.Error())
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
	res, superseded := s.q.offer(j)
	switch res {
	case offerDuplicate:
		s.duplicate(w, ev, delivery, event)
	case offerClosing:
		s.unavailable(w, ev, outcomeShuttingDown, "shutting down: redeliver later")
	case offerFull:
		s.log.Warn("webhook queue full: delivery refused with 503", append(jobAttrs(j), "queue_size", s.cfg.QueueSize)...)
		s.unavailable(w, ev, outcomeQueueFull, fmt.Sprintf("queue full (%d jobs waiting): redeliver later", s.cfg.QueueSize))
	default:
		attrs := jobAttrs(j)
		msg := "queued"
		if superseded != nil {
			s.metrics.coalesced.Inc()
			attrs = append(attrs, "superseded_delivery", superseded.Delivery, "superseded_head_sha", superseded.HeadSHA)
			msg = "queued, superseding delivery " + superseded.Delivery
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

// maxPrealloc caps the buffer allocated up front from Content-Length, a
// number the sender chose before its signature is checked.
const maxPrealloc = 1 << 20

// readBody reads all of r, sizing the buffer from the Content-Length hint
// (-1 when unknown).
func readBody(r io.Reader, hint int64) ([]byte, error) {
	var buf bytes.Buffer
	if hint > 0 {
		buf.Grow(int(min(hint, maxPrealloc)) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
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
	s.answer(w, ev, outcomeDuplicate, http.StatusOK, "duplicate delivery "+delivery+": already queued, not queued again")
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

package app

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// conditional sends each GET with the ETag of the last 200 answer of the
// same URL and Accept header (If-None-Match), and turns GitHub's 304 Not
// Modified into that answer again, with the 304's rate-limit headers.
// GitHub does not count a 304 against the rate limit, so a reconcile pass
// over pull requests whose check runs did not change since the last pass
// costs almost none of the installation's budget. It keeps answers of at
// most maxConditionalBody bytes, maxConditionalBytes in all; past that it
// forgets arbitrary ones. Safe for concurrent use.
type conditional struct {
	next http.RoundTripper

	mu      sync.Mutex
	entries map[string]*etagged
	size    int // bytes of the bodies kept
}

type etagged struct {
	etag   string
	header http.Header
	body   []byte
}

// A check-run list of one aggregate is a few kB: 16 MiB keeps those of
// thousands of pull requests per installation.
const (
	maxConditionalBody  = 1 << 20
	maxConditionalBytes = 16 << 20
)

func newConditional(next http.RoundTripper) *conditional {
	return &conditional{next: next, entries: map[string]*etagged{}}
}

func (c *conditional) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("If-None-Match") != "" {
		return c.next.RoundTrip(req)
	}
	key := req.URL.String() + "\x00" + req.Header.Get("Accept")
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	sent := req
	if e != nil {
		sent = req.Clone(req.Context())
		sent.Header.Set("If-None-Match", e.etag)
	}
	resp, err := c.next.RoundTrip(sent)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && e != nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		h := e.header.Clone()
		for k, v := range resp.Header {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Ratelimit-") {
				h[k] = v
			}
		}
		h.Set("Content-Length", strconv.Itoa(len(e.body)))
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)), Request: req}, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxConditionalBody+1))
		if rerr != nil || len(body) > maxConditionalBody {
			// Not kept: hand on what was read and the rest.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
			return resp, nil
		}
		resp.Body.Close()
		c.mu.Lock()
		if old := c.entries[key]; old != nil {
			c.size -= len(old.body)
			delete(c.entries, key)
		}
		for k, e := range c.entries {
			if c.size+len(body) <= maxConditionalBytes {
				break
			}
			c.size -= len(e.body)
			delete(c.entries, k)
		}
		c.entries[key] = &etagged{etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: body}
		c.size += len(body)
		c.mu.Unlock()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	return resp, nil
}

package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestConditional: a GET answered 200 with an ETag is sent again with
// If-None-Match, and a 304 is handed on as the kept answer with the 304's
// rate-limit headers; an answer too large to keep is handed on whole and
// sent again without If-None-Match; the bytes kept stay bounded.
func TestConditional(t *testing.T) {
	var mu sync.Mutex
	var inm []string
	bodies := map[string]string{"/small": `{"a":1}`, "/large": strings.Repeat("x", maxConditionalBody+1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inm = append(inm, r.Header.Get("If-None-Match"))
		n := len(inm)
		mu.Unlock()
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(100-n))
		etag := `"` + r.URL.Path + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, bodies[r.URL.Path])
	}))
	defer srv.Close()
	c := newConditional(http.DefaultTransport)
	get := func(path string) (int, string, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		resp, err := c.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Get("X-RateLimit-Remaining")
	}
	for i, tc := range []struct {
		path, wantINM, wantRemaining string
	}{
		{"/small", "", "99"},
		{"/small", `"/small"`, "98"}, // 304: the kept body, the new budget
		{"/large", "", "97"},
		{"/large", "", "96"}, // not kept
	} {
		code, body, remaining := get(tc.path)
		mu.Lock()
		sent := inm[i]
		mu.Unlock()
		if code != http.StatusOK || body != bodies[tc.path] || remaining != tc.wantRemaining || sent != tc.wantINM {
			t.Errorf("request %d (%s): %d, %d bytes, remaining %s, sent If-None-Match %q; want 200, %d bytes, remaining %s, %q",
				i+1, tc.path, code, len(body), remaining, sent, len(bodies[tc.path]), tc.wantRemaining, tc.wantINM)
		}
	}
	// Many answers: the bytes kept stay within the bound.
	big := strings.Repeat("y", maxConditionalBody)
	for i := range maxConditionalBytes/maxConditionalBody + 3 {
		p := "/many/" + strconv.Itoa(i)
		bodies[p] = big
		get(p)
	}
	if c.size > maxConditionalBytes || len(c.entries) > maxConditionalBytes/maxConditionalBody {
		t.Errorf("%d bytes in %d answers kept, want at most %d", c.size, len(c.entries), maxConditionalBytes)
	}
}

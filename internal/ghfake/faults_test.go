package ghfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// freshClient is a go-github client on a connection per request, so that
// net/http does not resend a GET on its own after a dropped connection
// (it does on a reused one) and every request reaches the fake once.
func freshClient(t *testing.T, s *ghfake.Server) *github.Client {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := github.NewClient(hc).WithAuthToken(ghfake.Token).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFaultKinds: each kind of fault, on a read and on a write, as the
// client sees it, whether the write took effect, and how the call is
// recorded.
func TestFaultKinds(t *testing.T) {
	cases := []struct {
		name  string
		fault ghfake.Fault
		// check judges the read's error.
		check      func(err error) bool
		wantStatus int  // recorded for the read
		wantStored bool // the write took effect
	}{
		{"500", ghfake.Fault{Status: http.StatusInternalServerError}, statusIs(500), 500, false},
		{"502 after applying", ghfake.Fault{Status: http.StatusBadGateway, AfterApplying: true}, statusIs(502), 502, true},
		{"503", ghfake.Fault{Status: http.StatusServiceUnavailable}, statusIs(503), 503, false},
		{"404", ghfake.Fault{Status: http.StatusNotFound}, statusIs(404), 404, false},
		{"hang", ghfake.Fault{Hang: true}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }, 0, false},
		{"hang after applying", ghfake.Fault{Hang: true, AfterApplying: true}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }, 0, true},
		{"reset", ghfake.Fault{Reset: true}, noResponse, 0, false},
		{"reset after applying", ghfake.Fault{Reset: true, AfterApplying: true}, noResponse, 0, true},
		{"truncated answer", ghfake.Fault{Truncate: true}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }, 200, true},
		{"proxy's HTML page", ghfake.Fault{Status: http.StatusBadGateway, Body: "<html><body>502 Bad Gateway</body></html>"}, statusIs(502), 502, false},
		{"200 with a body that is not JSON", ghfake.Fault{Status: http.StatusOK, Body: `{"permission":"rea`, AfterApplying: true},
			func(err error) bool {
				var se *json.SyntaxError
				return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
			}, 200, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			gh := freshClient(t, s)
			s.SetPermission("o/r", "u", "read")
			read, write := tc.fault, tc.fault
			read.Operation = "repos/get-collaborator-permission-level"
			write.Operation = "issues/create-comment"
			s.Fail(read)
			s.Fail(write)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, _, err := gh.Repositories.GetPermissionLevel(ctx, "o", "r", "u")
			if err == nil || !tc.check(err) {
				t.Errorf("read: got %v (%T)", err, err)
			}
			calls := s.CallsTo(read.Operation)
			if len(calls) != 1 || calls[0].Status != tc.wantStatus {
				t.Errorf("read recorded as %+v, want one call with status %d", calls, tc.wantStatus)
			}
			wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer wcancel()
			if _, _, err := gh.Issues.CreateComment(wctx, "o", "r", 1, &github.IssueComment{Body: github.String("x")}); err == nil {
				t.Error("write: no error")
			}
			if stored := len(s.Comments("o/r", 1)) == 1; stored != tc.wantStored {
				t.Errorf("write stored %v, want %v", stored, tc.wantStored)
			}
			// The next requests are served normally.
			if _, _, err := gh.Repositories.GetPermissionLevel(context.Background(), "o", "r", "u"); err != nil {
				t.Errorf("after the fault: %v", err)
			}
		})
	}
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func statusIs(code int) func(error) bool {
	return func(err error) bool {
		var er *github.ErrorResponse
		return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == code
	}
}

// noResponse is true for an error without an HTTP answer.
func noResponse(err error) bool {
	var er *github.ErrorResponse
	return err != nil && !errors.As(err, &er) && !errors.Is(err, context.DeadlineExceeded)
}

// TestFaultWindows: a fault matches by method and operation, from the
// Nth matching request for Times requests (every one when negative), and
// ClearFaults ends them all.
func TestFaultWindows(t *testing.T) {
	cases := []struct {
		name  string
		fault ghfake.Fault
		want  string // statuses of 6 reads
	}{
		{"first call", ghfake.Fault{Status: 502}, "502 200 200 200 200 200"},
		{"first three", ghfake.Fault{Status: 503, Times: 3}, "503 503 503 200 200 200"},
		{"every call", ghfake.Fault{Status: 503, Times: -1}, "503 503 503 503 503 503"},
		{"from the 4th on", ghfake.Fault{Status: 404, Nth: 4, Times: -1}, "200 200 200 404 404 404"},
		{"another operation", ghfake.Fault{Operation: "checks/create", Status: 500, Times: -1}, "200 200 200 200 200 200"},
		{"another method", ghfake.Fault{Method: "POST", Status: 500, Times: -1}, "200 200 200 200 200 200"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ghfake.New(t)
			gh := freshClient(t, s)
			s.SetPermission("o/r", "u", "read")
			f := tc.fault
			if f.Operation == "" && f.Method == "" {
				f.Operation = "repos/get-collaborator-permission-level"
			}
			s.Fail(f)
			var got []string
			for range 6 {
				_, _, _ = gh.Repositories.GetPermissionLevel(context.Background(), "o", "r", "u")
			}
			for _, c := range s.Calls() {
				got = append(got, http.StatusText(c.Status))
			}
			var want []string
			for _, code := range strings.Fields(tc.want) {
				want = append(want, http.StatusText(mustAtoi(t, code)))
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	s := ghfake.New(t)
	s.SetPermission("o/r", "u", "read")
	s.Fail(ghfake.Fault{Status: 503, Times: -1})
	s.ClearFaults()
	if _, _, err := freshClient(t, s).Repositories.GetPermissionLevel(context.Background(), "o", "r", "u"); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

// TestHangEndsWithTheTest: a request that hangs with no deadline is let
// go when the test ends (its connection dropped, never an empty 200), so
// that the fake's Close does not wait for it.
func TestHangEndsWithTheTest(t *testing.T) {
	errc := make(chan error, 1)
	started := false
	t.Run("hanging", func(t *testing.T) {
		s := ghfake.New(t) // skips the subtest without ../shared
		started = true
		s.SetPermission("o/r", "u", "read")
		s.Fail(ghfake.Fault{Hang: true})
		gh := freshClient(t, s)
		go func() {
			_, _, err := gh.Repositories.GetPermissionLevel(context.Background(), "o", "r", "u")
			errc <- err
		}()
		for len(s.Calls()) == 0 {
			time.Sleep(time.Millisecond)
		}
	})
	if !started {
		t.Skip("skipping: the fake GitHub needs ../shared (see the subtest)")
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the hanging request got an answer")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hanging request was not released when the test ended")
	}
}

package ghfake_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/ghfake"
)

// gitHistory is a bare repository made with git fast-import: main holds
// first and its child second; feature holds third, a child of first;
// dangling is a commit no ref reaches.
type gitHistory struct {
	dir                            string
	first, second, third, dangling string
}

func newGitHistory(t *testing.T) gitHistory {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("skipping: git is not installed: %v", err)
	}
	h := gitHistory{dir: filepath.Join(t.TempDir(), "r.git")}
	stream := `commit refs/heads/main
mark :1
committer t <t@example.com> 1700000000 +0000
data 5
first
M 644 inline a.txt
data 2
a

commit refs/heads/main
mark :2
committer t <t@example.com> 1700000060 +0000
data 6
second
from :1
M 644 inline b.txt
data 2
b

commit refs/heads/feature
mark :3
committer t <t@example.com> 1700000120 +0000
data 5
third
from :1
M 644 inline c.txt
data 2
c

`
	runGit(t, "", "", "init", "-q", "--bare", "-b", "main", h.dir)
	runGit(t, h.dir, stream, "fast-import", "--quiet")
	h.first = runGit(t, h.dir, "", "rev-parse", "main~1")
	h.second = runGit(t, h.dir, "", "rev-parse", "main")
	h.third = runGit(t, h.dir, "", "rev-parse", "feature")
	h.dangling = runGit(t, h.dir, "", "commit-tree", "-m", "dangling", h.first+"^{tree}")
	return h
}

// runGit runs git in dir (the current directory when "") without the
// system's or the user's configuration and returns its trimmed output; it
// fails the test when git fails.
func runGit(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	out, err := gitOutput(t, dir, stdin, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func gitOutput(t *testing.T, dir, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// basicAuth is the Authorization header of the fake's token as a git
// password.
func basicAuth() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+ghfake.Token))
}

// TestGitFetchBySHA: git fetches a commit by its SHA, over protocol
// versions 0 and 2, when a ref reaches it; a repository served tips only
// still serves a tip by its SHA, and over protocol version 0 refuses a
// commit no ref points at. (Over version 2, git's upload-pack does not
// check wants against the tips, with or without the fake: not tested.)
func TestGitFetchBySHA(t *testing.T) {
	h := newGitHistory(t)
	s := ghfake.New(t)
	s.ServeGit("o/all", h.dir)
	s.ServeGit("o/tips", h.dir, ghfake.GitTipsOnly())
	cases := []struct {
		versions  []string
		repo, sha string
		wantErr   string // "" when the fetch works
	}{
		{[]string{"0", "2"}, "o/all", h.first, ""},   // reachable from main, not a tip
		{[]string{"0", "2"}, "o/all", h.third, ""},   // a tip
		{[]string{"0", "2"}, "o/tips", h.second, ""}, // a tip
		// The advertisement lacks allow-reachable-sha1-in-want, so git
		// does not even ask (the server's own refusal: TestGitSmartHTTP).
		{[]string{"0"}, "o/tips", h.first, "does not allow request for unadvertised object"},
	}
	for _, tc := range cases {
		for _, version := range tc.versions {
			t.Run(fmt.Sprintf("v%s %s %s", version, tc.repo, tc.sha[:7]), func(t *testing.T) {
				clone := t.TempDir()
				runGit(t, clone, "", "init", "-q", "--bare")
				before := len(s.GitRequests())
				out, err := gitOutput(t, clone, "", "-c", "protocol.version="+version, "-c", "http.extraHeader=Authorization: "+basicAuth(),
					"fetch", "--depth=1", s.WebURL+"/"+tc.repo+".git", tc.sha)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(out, tc.wantErr) {
						t.Fatalf("fetching %s from %s: %v, want an error saying %q:\n%s", tc.sha, tc.repo, err, tc.wantErr, out)
					}
					return
				}
				if err != nil {
					t.Fatalf("fetching %s from %s: %v\n%s", tc.sha, tc.repo, err, out)
				}
				runGit(t, clone, "", "cat-file", "-e", tc.sha+"^{commit}")
				reqs := s.GitRequests()[before:]
				if len(reqs) < 2 || reqs[0].Path != "/info/refs" || reqs[len(reqs)-1].Path != "/git-upload-pack" {
					t.Errorf("git requests %+v, want info/refs then git-upload-pack", reqs)
				}
				for _, r := range reqs {
					if r.Status != http.StatusOK || r.Repo != tc.repo || r.User != "x-access-token" {
						t.Errorf("git request %+v, want a 200 to %s for x-access-token", r, tc.repo)
					}
				}
			})
		}
	}
}

// TestGitSmartHTTP: the fake answers git's smart HTTP requests as git
// http-backend does: the advertisement with its service header (none for
// protocol version 2), the pack for a plain or gzipped request, 415 for
// another content type, 401 without the token, 403 for a push, and the
// dumb protocol's files; a commit no ref reaches is served unless the
// repository is served tips only; each request is recorded with its status.
func TestGitSmartHTTP(t *testing.T) {
	h := newGitHistory(t)
	s := ghfake.New(t)
	s.ServeGit("o/r", h.dir)
	s.ServeGit("o/tips", h.dir, ghfake.GitTipsOnly())
	do := func(method, path string, header map[string]string, body []byte) (*http.Response, []byte) {
		t.Helper()
		repo := "/o/r.git"
		if p, ok := strings.CutPrefix(path, "tips:"); ok {
			repo, path = "/o/tips.git", p
		}
		req, err := http.NewRequest(method, s.WebURL+repo+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", basicAuth())
		for k, v := range header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, data
	}

	resp, adv := do(http.MethodGet, "/info/refs?service=git-upload-pack", nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-git-upload-pack-advertisement" ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "no-cache") {
		t.Errorf("advertisement: %d %v", resp.StatusCode, resp.Header)
	}
	if !bytes.HasPrefix(adv, []byte("001e# service=git-upload-pack\n0000")) || !bytes.Contains(adv, []byte(h.second+" refs/heads/main")) ||
		!bytes.Contains(adv, []byte("allow-reachable-sha1-in-want")) {
		t.Errorf("advertisement:\n%s", adv)
	}
	resp, adv2 := do(http.MethodGet, "/info/refs?service=git-upload-pack", map[string]string{"Git-Protocol": "version=2"}, nil)
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(adv2, []byte("000eversion 2\n")) {
		t.Errorf("protocol v2 advertisement: %d\n%s", resp.StatusCode, adv2)
	}

	pkt := func(line string) string { return fmt.Sprintf("%04x%s", len(line)+4, line) }
	want := pkt("want "+h.first+" ofs-delta no-progress\n") + "0000" + pkt("done\n")
	resp, plain := do(http.MethodPost, "/git-upload-pack", map[string]string{"Content-Type": "application/x-git-upload-pack-request"}, []byte(want))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-git-upload-pack-result" ||
		!bytes.HasPrefix(plain, []byte("0008NAK\nPACK")) {
		t.Errorf("upload-pack: %d %v\n%q", resp.StatusCode, resp.Header, plain[:min(len(plain), 40)])
	}
	// Over stateless HTTP, git's upload-pack serves any commit a ref
	// reaches; one that none reaches only with allowAnySHA1InWant, which
	// a repository served tips only lacks.
	wantDangling := []byte(pkt("want "+h.dangling+" ofs-delta no-progress\n") + "0000" + pkt("done\n"))
	resp, body := do(http.MethodPost, "/git-upload-pack", map[string]string{"Content-Type": "application/x-git-upload-pack-request"}, wantDangling)
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(body, []byte("0008NAK\nPACK")) {
		t.Errorf("a want of a commit no ref reaches: %d %q", resp.StatusCode, body[:min(len(body), 60)])
	}
	resp, body = do(http.MethodPost, "tips:/git-upload-pack", map[string]string{"Content-Type": "application/x-git-upload-pack-request"}, wantDangling)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("ERR upload-pack: not our ref "+h.dangling)) {
		t.Errorf("a want of a commit no ref reaches, served tips only: %d %q", resp.StatusCode, body[:min(len(body), 60)])
	}
	resp, body = do(http.MethodGet, "tips:/info/refs?service=git-upload-pack", nil, nil)
	if resp.StatusCode != http.StatusOK || bytes.Contains(body, []byte("sha1-in-want")) || !bytes.Contains(body, []byte(h.second+" refs/heads/main")) {
		t.Errorf("advertisement of a repository served tips only: %d\n%s", resp.StatusCode, body)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(want))
	_ = zw.Close()
	resp, zipped := do(http.MethodPost, "/git-upload-pack", map[string]string{"Content-Type": "application/x-git-upload-pack-request", "Content-Encoding": "gzip"}, gz.Bytes())
	if resp.StatusCode != http.StatusOK || !bytes.Equal(zipped, plain) {
		t.Errorf("upload-pack of a gzipped request: %d, %d bytes, want the %d of the plain request", resp.StatusCode, len(zipped), len(plain))
	}
	resp, _ = do(http.MethodPost, "/git-upload-pack", map[string]string{"Content-Type": "application/x-git-upload-pack-request", "Content-Encoding": "gzip"}, []byte(want))
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a request announced as gzip that is not: %d, want 400", resp.StatusCode)
	}
	resp, body = do(http.MethodPost, "/git-upload-pack", map[string]string{"Content-Type": "text/plain"}, []byte(want))
	if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(body), "application/x-git-upload-pack-request") {
		t.Errorf("another content type: %d %s, want 415", resp.StatusCode, body)
	}
	resp, body = do(http.MethodGet, "/HEAD", nil, nil)
	if resp.StatusCode != http.StatusOK || string(body) != "ref: refs/heads/main\n" {
		t.Errorf("GET HEAD (dumb protocol): %d %q", resp.StatusCode, body)
	}
	resp, _ = do(http.MethodPost, "/git-upload-pack", map[string]string{"Authorization": "", "Content-Type": "application/x-git-upload-pack-request"}, []byte(want))
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("upload-pack without credentials: %d %v, want 401 with a challenge", resp.StatusCode, resp.Header)
	}
	resp, _ = do(http.MethodGet, "/info/refs?service=git-receive-pack", nil, nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("push advertisement: %d, want 403", resp.StatusCode)
	}

	var got []string
	for _, r := range s.GitRequests() {
		got = append(got, fmt.Sprintf("%s %d", r.Path, r.Status))
	}
	wantReqs := []string{"/info/refs 200", "/info/refs 200", "/git-upload-pack 200", "/git-upload-pack 200", "/git-upload-pack 200", "/info/refs 200", "/git-upload-pack 200", "/git-upload-pack 400",
		"/git-upload-pack 415", "/HEAD 200", "/git-upload-pack 401", "/info/refs 403"}
	if strings.Join(got, ", ") != strings.Join(wantReqs, ", ") {
		t.Errorf("GitRequests() = %v, want %v", got, wantReqs)
	}
}

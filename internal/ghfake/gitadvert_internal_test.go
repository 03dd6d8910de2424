package ghfake

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fastImport makes a bare repository in dir whose branch b<i> (i < n)
// holds one commit adding file f<i>, with loose refs under refs/heads/bench/.
func fastImport(t testing.TB, dir string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "commit refs/heads/bench/b%d\ncommitter t <t@example.com> %d +0000\ndata 2\nm\nM 644 inline f%d\ndata 2\nx\n\n", i, 1700000000+i, i)
	}
	for _, args := range [][]string{{"init", "-q", "--bare", dir}, {"-C", dir, "fast-import", "--quiet"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		cmd.Stdin = strings.NewReader(b.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func BenchmarkRefsState(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip(err)
	}
	dir := filepath.Join(b.TempDir(), "r.git")
	fastImport(b, dir, 52)
	b.ResetTimer()
	for range b.N {
		if _, err := refsState(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAdvertisementCache: the ref advertisement is served again without
// running upload-pack while the refs are unchanged, and made anew when a
// ref moves (rewritten in place, same size, at once, as go-git does), is
// added in a new folder, is deleted, or is packed; it is kept per protocol
// version and per serving option.
func TestAdvertisementCache(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	s := New(t)
	dir := filepath.Join(t.TempDir(), "r.git")
	fastImport(t, dir, 3)
	s.ServeGit("o/r", dir)
	runs := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.git.uploadPacks
	}
	get := func(repo, proto string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.WebURL+"/"+repo+".git/info/refs?service=git-upload-pack", nil)
		req.SetBasicAuth("x-access-token", Token)
		if proto != "" {
			req.Header.Set("Git-Protocol", proto)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET info/refs: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	// check gets the advertisement and wants it made by upload-pack
	// (ran) or not, and to advertise ref at sha ("" for none of ref).
	check := func(step string, ran bool, ref, sha string) string {
		t.Helper()
		n := runs()
		adv := get("o/r", "")
		if got := runs() - n; got != map[bool]int{true: 1, false: 0}[ran] {
			t.Errorf("%s: upload-pack ran %d times", step, got)
		}
		if sha == "" && strings.Contains(adv, " "+ref) || sha != "" && !strings.Contains(adv, sha+" "+ref) {
			t.Errorf("%s: advertisement without %s at %q:\n%s", step, ref, sha, adv)
		}
		return adv
	}
	b0 := readRef(t, dir, "refs/heads/bench/b0")
	b1 := readRef(t, dir, "refs/heads/bench/b1")
	first := check("first", true, "refs/heads/bench/b0", b0)
	if again := check("unchanged", false, "refs/heads/bench/b0", b0); again != first {
		t.Errorf("the cached advertisement differs:\n%s\nwant\n%s", again, first)
	}
	// In place, same length, same inode, within the clock's tick.
	writeRef(t, dir, "refs/heads/bench/b0", b1)
	check("ref moved in place", true, "refs/heads/bench/b0", b1)
	check("unchanged after the move", false, "refs/heads/bench/b0", b1)
	if err := os.MkdirAll(filepath.Join(dir, "refs/heads/x/y"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeRef(t, dir, "refs/heads/x/y/z", b0)
	check("ref added in a new folder", true, "refs/heads/x/y/z", b0)
	if err := os.Remove(filepath.Join(dir, "refs/heads/x/y/z")); err != nil {
		t.Fatal(err)
	}
	check("ref deleted", true, "refs/heads/x/y/z", "")
	cmd := exec.Command("git", "-C", dir, "pack-refs", "--all")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git pack-refs: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "refs/heads/bench/b0")); err == nil {
		t.Fatal("git pack-refs left the loose ref")
	}
	check("refs packed", true, "refs/heads/bench/b0", b1)
	check("unchanged after packing", false, "refs/heads/bench/b0", b1)

	n := runs()
	if v2 := get("o/r", "version=2"); !strings.HasPrefix(v2, "000eversion 2\n") || runs() != n+1 {
		t.Errorf("protocol v2: upload-pack ran %d times for\n%s", runs()-n, v2)
	}
	s.ServeGit("o/r", dir, GitTipsOnly())
	if tips := check("served tips only", true, "refs/heads/bench/b0", b1); strings.Contains(tips, "sha1-in-want") {
		t.Errorf("served tips only, the advertisement offers fetch by SHA:\n%s", tips)
	}
}

func readRef(t *testing.T, dir, ref string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ref))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// writeRef rewrites a loose ref in place (same inode), as go-git does.
func writeRef(t *testing.T, dir, ref, sha string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ref), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(sha + "\n"); err != nil {
		t.Fatal(err)
	}
}

// TestRefsStateRefusesIncludes: a repository whose config includes other
// files, or a linked worktree's git directory, is not cached.
func TestRefsStateRefusesIncludes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "r.git")
	fastImport(t, dir, 1)
	if _, err := refsState(dir); err != nil {
		t.Fatalf("refsState: %v", err)
	}
	for _, f := range []struct{ name, content string }{
		{"config", "[include]\n\tpath = /elsewhere\n"},
		{"commondir", "../..\n"},
	} {
		d := filepath.Join(t.TempDir(), "r.git")
		fastImport(t, d, 1)
		if err := os.WriteFile(filepath.Join(d, f.name), []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := refsState(d); err != errNoCache {
			t.Errorf("with %s %q: %v, want errNoCache", f.name, f.content, err)
		}
	}
}

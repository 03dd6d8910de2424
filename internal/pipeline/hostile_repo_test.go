package pipeline

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// This file builds hostile repositories with git's plumbing (hash-object,
// commit-tree, update-ref): trees are written byte by byte, so they can hold
// what `git add` refuses (a ".." entry, a newline in a name, a gitlink with
// no .gitmodules, a symlink named .swarm) and blobs are streamed from a
// generator, so a 200 MB file never passes through a Go string.

// Git file modes as tree objects write them.
const (
	modeFile    = "100644"
	modeSymlink = "120000"
	modeGitlink = "160000"
	modeTree    = "40000"
)

// hostileEntry is one tree entry: a blob (mode and content, or a blob
// already written), a symlink (content is the target) or a gitlink (oid is
// a commit of another repository).
type hostileEntry struct {
	mode string
	data []byte
	oid  string // hex object name; when set, data is not written
}

// hostileTree maps repository paths ("/"-separated; elements may hold any
// byte but "/" and NUL, ".." included) to entries.
type hostileTree map[string]hostileEntry

// file, symlink, gitlink and blobRef make entries: a regular file, a
// symlink to target, a submodule at a commit, a blob already written.
func file(s string) hostileEntry {
	return hostileEntry{mode: modeFile, data: []byte(s)}
}

func symlink(target string) hostileEntry {
	return hostileEntry{mode: modeSymlink, data: []byte(target)}
}

func gitlink(commit string) hostileEntry {
	return hostileEntry{mode: modeGitlink, oid: commit}
}

func blobRef(mode, oid string) hostileEntry {
	return hostileEntry{mode: mode, oid: oid}
}

// clone copies t so that a case can change it.
func (t hostileTree) clone() hostileTree {
	out := hostileTree{}
	for k, v := range t {
		out[k] = v
	}
	return out
}

// hostileGit is a repository driven by the git CLI, with every setting
// that could vary between machines pinned.
type hostileGit struct {
	t   testing.TB
	dir string
	env []string
	n   int // commits made, for distinct dates
}

func newHostileGit(t testing.TB) *hostileGit {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the hostile repositories are written with git's plumbing commands; git is not on PATH")
	}
	h := &hostileGit{t: t, dir: t.TempDir()}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			h.env = append(h.env, kv)
		}
	}
	h.env = append(h.env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	h.run(nil, "init", "-q", "-b", "main")
	return h
}

// run runs git in the repository with stdin (may be nil) and returns stdout.
func (h *hostileGit) run(stdin io.Reader, args ...string) string {
	h.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = h.dir
	cmd.Env = h.env
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// blob writes a blob streamed from r and returns its object name.
func (h *hostileGit) blob(r io.Reader) string {
	h.t.Helper()
	return h.run(r, "hash-object", "-w", "--stdin")
}

// writeTree writes t as nested tree objects and returns the root tree's
// name. Entries are sorted as git sorts them (a tree "a" as "a/").
func (h *hostileGit) writeTree(t hostileTree) string {
	h.t.Helper()
	type child struct {
		name string
		mode string
		oid  string
	}
	subtrees := map[string]hostileTree{}
	var children []child
	for p, e := range t {
		first, rest, nested := strings.Cut(p, "/")
		if nested {
			if subtrees[first] == nil {
				subtrees[first] = hostileTree{}
			}
			subtrees[first][rest] = e
			continue
		}
		oid := e.oid
		if oid == "" {
			oid = h.blob(bytes.NewReader(e.data))
		}
		children = append(children, child{name: first, mode: e.mode, oid: oid})
	}
	for name, sub := range subtrees {
		children = append(children, child{name: name, mode: modeTree, oid: h.writeTree(sub)})
	}
	key := func(c child) string {
		if c.mode == modeTree {
			return c.name + "/"
		}
		return c.name
	}
	sort.Slice(children, func(i, j int) bool { return key(children[i]) < key(children[j]) })
	var raw bytes.Buffer
	for _, c := range children {
		bin, err := hex.DecodeString(c.oid)
		if err != nil || len(bin) != 20 {
			h.t.Fatalf("bad object name %q for %q", c.oid, c.name)
		}
		raw.WriteString(c.mode + " " + c.name + "\x00")
		raw.Write(bin)
	}
	return h.rawTree(raw.Bytes())
}

// rawTree writes tree bytes as they are, without git's checks.
func (h *hostileGit) rawTree(raw []byte) string {
	h.t.Helper()
	return h.run(bytes.NewReader(raw), "hash-object", "-w", "-t", "tree", "--literally", "--stdin")
}

// commit makes a commit of tree on branch (created or moved), with parent
// when not "", and returns its name.
func (h *hostileGit) commit(branch, tree, parent string) string {
	h.t.Helper()
	h.n++
	date := "2026-11-02T09:00:00Z"
	if h.n > 1 {
		date = "2026-11-02T1" + string(rune('0'+h.n%10)) + ":00:00Z"
	}
	args := []string{"commit-tree", tree, "-m", "c"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	saved := h.env
	h.env = append(h.env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	c := h.run(nil, args...)
	h.env = saved
	h.run(nil, "update-ref", "refs/heads/"+branch, c)
	return c
}

// demoTrees reads the demo example (internal/demo/_example): the base tree,
// and the head tree (base overlaid with head).
func demoTrees(t testing.TB) (base, head hostileTree) {
	t.Helper()
	read := func(root string, into hostileTree) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			into[filepath.ToSlash(rel)] = hostileEntry{mode: modeFile, data: data}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	base = hostileTree{}
	read(filepath.Join("..", "demo", "_example", "base"), base)
	head = base.clone()
	read(filepath.Join("..", "demo", "_example", "head"), head)
	return base, head
}

// buildHostile makes the base commit on main from base and the head commit
// on swarm/phase-1 (phase 1 of the demo plan) from head.
func buildHostile(t testing.TB, base, head hostileTree) *hostileGit {
	t.Helper()
	h := newHostileGit(t)
	b := h.commit("main", h.writeTree(base), "")
	h.commit("swarm/phase-1", h.writeTree(head), b)
	return h
}

// hexBytes decodes a hex object name into its 20 bytes.
func hexBytes(t testing.TB, oid string) []byte {
	t.Helper()
	b, err := hex.DecodeString(oid)
	if err != nil || len(b) != 20 {
		t.Fatalf("bad object name %q", oid)
	}
	return b
}

// blobFrom writes a blob streamed from write (run in a goroutine through a
// pipe into `git hash-object --stdin`), so that a blob of hundreds of MB
// never sits in memory.
func (h *hostileGit) blobFrom(write func(w *bufio.Writer)) string {
	h.t.Helper()
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		write(w)
		pw.CloseWithError(w.Flush())
	}()
	oid := h.blob(pr)
	pr.Close()
	return oid
}

// toggleEvents returns two task_status_changed lines for the demo head's
// ledger (seq left as %d) that set task 1.3 to in_progress and back, with
// the plan hashes the replay computes, so that any number of them
// replays cleanly; and the seq of the ledger's last event.
func toggleEvents(t testing.TB, ledger []byte) (on, off string, lastSeq int) {
	t.Helper()
	l, err := swarm.ParseLedger(swarm.LedgerPath, ledger)
	if err != nil {
		t.Fatal(err)
	}
	last := l.Last()
	mk := func(from, to, before, after string) string {
		return `{"plan_id":"default-CSV_export","event_type":"task_status_changed","task_id":"1.3","phase_id":1,"from_status":"` + from +
			`","to_status":"` + to + `","source":"savePlan","seq":%d,"timestamp":"2026-11-02T11:20:00.000Z","plan_hash_before":"` + before +
			`","plan_hash_after":"` + after + `","schema_version":"1.1.0"}`
	}
	h0 := last.PlanHashAfter
	probe := append(bytes.Clone(ledger), fmt.Sprintf(mk("pending", "in_progress", h0, "unknown"), last.Seq+1)+"\n"...)
	pl, err := swarm.ParseLedger(swarm.LedgerPath, probe)
	if err != nil {
		t.Fatal(err)
	}
	h1 := swarm.ReplayLedger(pl).FinalHash
	if h1 == "" {
		t.Fatal("the replay gave no final hash")
	}
	return mk("pending", "in_progress", h0, h1), mk("in_progress", "pending", h1, h0), last.Seq
}

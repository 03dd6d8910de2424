package source

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"
	"testing"
)

// Hostile trees (issue 11, item 2), written byte by byte with git's
// plumbing: what `git add` refuses, a snapshot and both diff engines must
// still answer about without looping, crashing, or losing files.

// rawRepo writes objects with the git CLI.
type rawRepo struct {
	t   *testing.T
	dir string
}

func newRawRepo(t *testing.T) *rawRepo {
	t.Helper()
	needGit(t)
	r := &rawRepo{t: t, dir: t.TempDir()}
	runGit(t, r.dir, "init", "-q")
	return r
}

func (r *rawRepo) run(stdin io.Reader, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git %v: %v: %s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

func (r *rawRepo) blob(content string) string {
	return r.run(strings.NewReader(content), "hash-object", "-w", "--stdin")
}

// tree writes a tree of entries given as mode, name, object triples, in
// the order given and without any check.
func (r *rawRepo) tree(entries ...string) string {
	r.t.Helper()
	var b bytes.Buffer
	for i := 0; i+2 < len(entries); i += 3 {
		oid, err := hex.DecodeString(entries[i+2])
		if err != nil {
			r.t.Fatal(err)
		}
		b.WriteString(entries[i] + " " + entries[i+1] + "\x00")
		b.Write(oid)
	}
	return r.run(&b, "hash-object", "-w", "-t", "tree", "--literally", "--stdin")
}

func (r *rawRepo) commit(tree string, parents ...string) string {
	args := []string{"commit-tree", tree, "-m", "c"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return r.run(nil, args...)
}

func (r *rawRepo) open(engine DiffEngine) *Git {
	r.t.Helper()
	g, err := OpenGit(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	g.Engine = engine
	return g
}

func TestSnapshotRefusesEntriesThatAreNotNames(t *testing.T) {
	r := newRawRepo(t)
	blob := r.blob("{}\n")
	for _, name := range []string{"..", "."} {
		t.Run(name, func(t *testing.T) {
			evidence := r.tree("100644", "1.1.json", blob)
			loop := r.tree("40000", name, evidence, "100644", "1.2.json", blob)
			swarmDir := r.tree("40000", "evidence", loop)
			root := r.tree("40000", ".swarm", swarmDir)
			g := r.open(DiffEngineGoGit)
			c, err := g.ResolveCommit(r.commit(root))
			if err != nil {
				t.Fatal(err)
			}
			snap, err := g.Snapshot(c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fs.ReadDir(snap, ".swarm/evidence"); !errors.Is(err, ErrBadEntryName) || !strings.Contains(err.Error(), ".swarm/evidence") {
				t.Errorf("ReadDir: %v, want ErrBadEntryName naming the folder", err)
			}
			// fs.WalkDir must end (it joins ".." to the path and would walk
			// .swarm/evidence forever) and report the folder.
			var walkErr error
			_ = fs.WalkDir(snap, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil && walkErr == nil {
					walkErr = err
				}
				return nil
			})
			if !errors.Is(walkErr, ErrBadEntryName) {
				t.Errorf("WalkDir: %v, want ErrBadEntryName", walkErr)
			}
		})
	}
}

func TestSnapshotReadsNamesGoGitRefuses(t *testing.T) {
	// go-git's FindEntry refuses control characters and ".git"; the
	// snapshot looks names up itself, so the gates see these files.
	r := newRawRepo(t)
	blob := r.blob("package x // TODO\n")
	for _, name := range []string{"a\nb.go", "tab\there.go", ".git", "\x7f.go"} {
		t.Run(strings.ToValidUTF8(name, "?"), func(t *testing.T) {
			g := r.open(DiffEngineGoGit)
			c, err := g.ResolveCommit(r.commit(r.tree("40000", "src", r.tree("100644", name, blob))))
			if err != nil {
				t.Fatal(err)
			}
			snap, err := g.Snapshot(c)
			if err != nil {
				t.Fatal(err)
			}
			data, err := fs.ReadFile(snap, "src/"+name)
			if err != nil || string(data) != "package x // TODO\n" {
				t.Errorf("ReadFile(%q) = %q, %v", name, data, err)
			}
		})
	}
}

func TestChangeSetHostileTrees(t *testing.T) {
	r := newRawRepo(t)
	blob := r.blob("package x\n")
	base := r.commit(r.tree("100644", "a.go", blob))
	corrupt := r.run(strings.NewReader("100644 a\x00b.go\x00"+strings.Repeat("z", 20)), "hash-object", "-w", "-t", "tree", "--literally", "--stdin")
	cases := []struct {
		name string
		dir  string // the folder the go-git engine must name
		tree string
	}{
		{"a folder named ..", "src/..", r.tree("100644", "a.go", blob, "40000", "src", r.tree("40000", "..", r.tree("100644", "x.go", blob)))},
		{"a newline in a folder name", "src/x\ny", r.tree("100644", "a.go", blob, "40000", "src", r.tree("40000", "x\ny", r.tree("100644", "x.go", blob)))},
		// A NUL cannot be in a name: it ends the name, and the bytes after
		// it are taken for the object name and the next entry.
		{"a NUL in a name (a corrupt tree)", "src", r.tree("100644", "a.go", blob, "40000", "src", corrupt)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := r.commit(c.tree, base)
			g := r.open(DiffEngineGoGit)
			from, _ := g.ResolveCommit(base)
			to, _ := g.ResolveCommit(head)
			_, err := g.ChangeSet(context.Background(), from, to)
			if err == nil || !strings.Contains(err.Error(), `"`+strings.ReplaceAll(c.dir, "\n", `\n`)+`"`) {
				t.Errorf("go-git engine: %v, want an error naming %q", err, c.dir)
			}
		})
	}
}

func TestChangeSetBigFileIsTooLarge(t *testing.T) {
	// A head blob over MaxDiffSize is TooLarge in both engines, its lines
	// unread: a 200 MB file must not cost 200 MB (or, diffed, a gigabyte).
	r := newRawRepo(t)
	small := r.blob("x\n")
	big := r.run(strings.NewReader(strings.Repeat("line of text\n", MaxDiffSize/13+1)), "hash-object", "-w", "--stdin")
	base := r.commit(r.tree("100644", "big.txt", small))
	head := r.commit(r.tree("100644", "big.txt", big, "100644", "new.txt", big), base)
	for _, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
		t.Run(string(engine), func(t *testing.T) {
			g := r.open(engine)
			from, _ := g.ResolveCommit(base)
			to, _ := g.ResolveCommit(head)
			cs, err := g.ChangeSet(context.Background(), from, to)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs.Files) != 2 {
				t.Fatalf("files %+v", cs.Files)
			}
			for _, f := range cs.Files {
				if !f.TooLarge || f.Binary || len(f.Added) != 0 || f.Size <= MaxDiffSize {
					t.Errorf("%s: too large %v, binary %v, %d added lines, size %d; want too large, not binary, none, over %d", f.Path(), f.TooLarge, f.Binary, len(f.Added), f.Size, MaxDiffSize)
				}
			}
		})
	}
}

// TestChangeSetTooLargeExcludesOnlyItsPath: the git engine keeps a big
// file out of the content diff with a literal pathspec, so a name with
// glob characters excludes only itself: the small file its pattern would
// match is still diffed, in both engines alike. A big file that only the
// merge base has (deleted, or replaced by a small one) is not TooLarge:
// there is nothing of it at head to scan.
func TestChangeSetTooLargeExcludesOnlyItsPath(t *testing.T) {
	r := newRawRepo(t)
	small := r.blob("x\n")
	added := r.blob("// TODO: one\n")
	big := r.run(strings.NewReader(strings.Repeat("line of text\n", (1<<20)/13+1)), "hash-object", "-w", "--stdin")
	base := r.commit(r.tree("100644", "gone.txt", big, "100644", "shrunk.txt", big))
	head := r.commit(r.tree("100644", "b*.go", big, "100644", "b1.go", added, "100644", "shrunk.txt", small), base)
	var got [2]string
	for k, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
		g := r.open(engine)
		g.MaxFileBytes = 1 << 20
		from, _ := g.ResolveCommit(base)
		to, _ := g.ResolveCommit(head)
		cs, err := g.ChangeSet(context.Background(), from, to)
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		var b strings.Builder
		for _, f := range cs.Files {
			fmt.Fprintf(&b, "%s %s too-large=%v binary=%v lines=%d size=%d\n", f.Status, f.Path(), f.TooLarge, f.Binary, len(f.Added), f.Size)
		}
		got[k] = b.String()
	}
	want := "added b*.go too-large=true binary=false lines=0 size=1048580\n" +
		"added b1.go too-large=false binary=false lines=1 size=13\n" +
		"deleted gone.txt too-large=false binary=true lines=0 size=-1\n" +
		"modified shrunk.txt too-large=false binary=true lines=0 size=2\n"
	for k, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
		if got[k] != want {
			t.Errorf("%s engine:\n%s\nwant\n%s", engine, got[k], want)
		}
	}
}

// TestChangeSetDuplicateEntries: a head tree that names one path twice
// (git fsck's duplicateEntries; `git add` never writes one) has no one
// content for that path: git diff lists both blobs, a lookup by path finds
// the first. Both engines refuse it with an error naming the path, instead
// of the gates reading one blob while the diff shows the other, and also
// when one of the two is over the size limit (the git engine keeps a big
// file's path out of the content diff, which would drop the other).
func TestChangeSetDuplicateEntries(t *testing.T) {
	r := newRawRepo(t)
	old := r.blob("package x\n")
	benign := r.blob("package y\n")
	hostile := r.blob("package x\nvar password = \"hunter2hunter2\"\n")
	big := r.run(strings.NewReader(strings.Repeat("line of text\n", (1<<20)/13+1)), "hash-object", "-w", "--stdin")
	base := r.commit(r.tree("100644", "a.go", old, "40000", "src", r.tree("100644", "b.go", old)))
	cases := []struct {
		name, path, tree string
		// gitLists: the git engine's diff lists the blob once and its
		// change set is sound; swarm/sast's read by path is what finds
		// the folder (pipeline's TestHostileRepositories).
		gitLists bool
	}{
		{"at the root", "a.go", r.tree("100644", "a.go", benign, "100644", "a.go", hostile, "40000", "src", r.tree("100644", "b.go", old)), false},
		{"in a folder", "src/b.go", r.tree("100644", "a.go", old, "40000", "src", r.tree("100644", "b.go", benign, "100644", "b.go", hostile)), false},
		{"one too large", "a.go", r.tree("100644", "a.go", big, "100644", "a.go", hostile, "40000", "src", r.tree("100644", "b.go", old)), false},
		{"a file and a folder", "src", r.tree("100644", "a.go", old, "40000", "src", r.tree("100644", "b.go", old), "100644", "src", hostile), true},
	}
	for _, c := range cases {
		for _, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
			t.Run(c.name+"/"+string(engine), func(t *testing.T) {
				head := r.commit(c.tree, base)
				g := r.open(engine)
				g.MaxFileBytes = 1 << 20
				from, _ := g.ResolveCommit(base)
				to, _ := g.ResolveCommit(head)
				cs, err := g.ChangeSet(context.Background(), from, to)
				if c.gitLists && engine == DiffEngineGit {
					if err != nil {
						t.Errorf("git engine: %v", err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), `"`+c.path+`" twice`) {
					var paths []string
					if cs != nil {
						for _, f := range cs.Files {
							paths = append(paths, f.Path())
						}
					}
					t.Errorf("err %v (files %q), want an error naming %q twice", err, paths, c.path)
				}
			})
		}
	}
}

// TestChangeSetSizesEitherWay: the git engine reads the head blobs' sizes
// through go-git for a few files and through git cat-file for many; both
// give what the go-git engine gives, a big file TooLarge.
func TestChangeSetSizesEitherWay(t *testing.T) {
	r := newRawRepo(t)
	big := r.run(strings.NewReader(strings.Repeat("line of text\n", MaxDiffSize/13+1)), "hash-object", "-w", "--stdin")
	base := r.commit(r.tree("100644", "a.txt", r.blob("a\n")))
	for _, n := range []int{2, inProcessSizes + 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			entries := []string{"100644", "big.txt", big}
			for i := range n {
				entries = append(entries, "100644", fmt.Sprintf("f%03d.txt", i), r.blob(strings.Repeat("y\n", i+1)))
			}
			head := r.commit(r.tree(entries...), base)
			var got [2]string
			for i, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
				g := r.open(engine)
				from, _ := g.ResolveCommit(base)
				to, _ := g.ResolveCommit(head)
				cs, err := g.ChangeSet(context.Background(), from, to)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, f := range cs.Files {
					fmt.Fprintf(&b, "%s %s size=%d too-large=%v\n", f.Status, f.Path(), f.Size, f.TooLarge)
				}
				got[i] = b.String()
			}
			if got[0] != got[1] || !strings.Contains(got[0], "big.txt size=") || !strings.Contains(got[0], "too-large=true") {
				t.Errorf("git engine:\n%s\ngo-git engine:\n%s", got[0], got[1])
			}
		})
	}
}

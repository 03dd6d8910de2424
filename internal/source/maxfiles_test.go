package source

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestChangeSetMaxChangedFiles: past Git.MaxChangedFiles paths both engines
// stop with a *TooManyFilesError before reading a blob (the head's blobs
// below do not exist, so a read would fail otherwise); a rename counts its
// two paths in both.
func TestChangeSetMaxChangedFiles(t *testing.T) {
	const limit = 10
	r := newRawRepo(t)
	blob := func(i int) string { return r.blob(fmt.Sprintf("file %d\nwith lines\nof its own\n", i)) }
	missing := func(i int) string { return fmt.Sprintf("%040x", 0xdead0000+i) }
	// tree writes keep.txt and n files <prefix><i>.txt for each prefix,
	// blobs by obj(i), in git's order.
	type group struct {
		prefix string
		n      int
		obj    func(int) string
	}
	tree := func(gs ...group) string {
		byName := map[string]string{"keep.txt": r.blob("keep\n")}
		for _, g := range gs {
			for i := 0; i < g.n; i++ {
				byName[fmt.Sprintf("%s%03d.txt", g.prefix, i)] = g.obj(i)
			}
		}
		names := slices.Sorted(maps.Keys(byName))
		var e []string
		for _, n := range names {
			e = append(e, "100644", n, byName[n])
		}
		return r.tree(e...)
	}
	base := r.commit(tree(group{"a", 6, blob}))
	cases := []struct {
		name  string
		head  string
		files int // the change set's files; -1: too many
	}{
		{"at the limit", tree(group{"a", 6, blob}, group{"n", limit, blob}), limit},
		{"one past it, no blob read", tree(group{"a", 6, blob}, group{"m", limit + 1, missing}), -1},
		{"far past it, no blob read", tree(group{"a", 6, blob}, group{"m", 500, missing}), -1},
		{"five renames are ten paths", tree(group{"a", 1, blob}, group{"b", 5, func(i int) string { return blob(i + 1) }}), 5},
		{"six renames are twelve paths", tree(group{"b", 6, blob}), -1},
	}
	for _, c := range cases {
		head := r.commit(c.head, base)
		for _, engine := range []DiffEngine{DiffEngineGit, DiffEngineGoGit} {
			t.Run(c.name+"/"+string(engine), func(t *testing.T) {
				g := r.open(engine)
				g.MaxChangedFiles = limit
				from, _ := g.ResolveCommit(base)
				to, _ := g.ResolveCommit(head)
				cs, err := g.ChangeSet(context.Background(), from, to)
				var tooMany *TooManyFilesError
				if c.files >= 0 {
					if err != nil {
						t.Fatal(err)
					}
					if len(cs.Files) != c.files {
						t.Fatalf("%d files, want %d:\n%s", len(cs.Files), c.files, dump(cs.Files))
					}
					return
				}
				if !errors.As(err, &tooMany) {
					t.Fatalf("got %v (%v), want a *TooManyFilesError", err, cs)
				}
				if tooMany.Limit != limit || tooMany.Seen <= limit {
					t.Errorf("seen %d, limit %d; want over %d and %d", tooMany.Seen, tooMany.Limit, limit, limit)
				}
				// git's output is read as it comes and no further.
				if engine == DiffEngineGit && tooMany.Seen != limit+1 {
					t.Errorf("the git engine read %d entries, want it to stop at %d", tooMany.Seen, limit+1)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("at least %d paths", tooMany.Seen)) {
					t.Errorf("error %q does not say how many", err)
				}
			})
		}
	}
}

// endlessRaw is `git diff --raw -z` output that never ends, counting what
// was read of it.
type endlessRaw struct {
	n, read int
	buf     []byte
}

func (e *endlessRaw) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		e.buf = fmt.Appendf(nil, ":000000 100644 %040d %040x A\x00z/d%d/f%d.txt\x00", 0, e.n+1, e.n/1000, e.n)
		e.n++
	}
	k := copy(p, e.buf)
	e.buf = e.buf[k:]
	e.read += k
	return k, nil
}

// TestReadRawStopsAtLimit: readRaw returns once the entry over the limit
// is read, whatever follows: memory holds limit+1 entries.
func TestReadRawStopsAtLimit(t *testing.T) {
	for _, limit := range []int{1, 100, 5000} {
		src := &endlessRaw{}
		const bufSize = 4096
		entries, err := readRaw(bufio.NewReaderSize(src, bufSize), limit)
		var tooMany *TooManyFilesError
		if !errors.As(err, &tooMany) || tooMany.Seen != limit+1 || tooMany.Limit != limit || entries != nil {
			t.Fatalf("limit %d: got %d entries, %v; want a *TooManyFilesError at %d", limit, len(entries), err, limit+1)
		}
		if entrySize := 120; src.read > (limit+1)*entrySize+bufSize {
			t.Errorf("limit %d: read %d bytes (%d entries), want at most %d entries and a buffer", limit, src.read, src.n, limit+1)
		}
	}
	// Without a limit, what ends is read whole.
	out := ":100644 100644 " + strings.Repeat("1", 40) + " " + strings.Repeat("2", 40) + " M\x00a b.txt\x00"
	entries, err := readRaw(bufio.NewReader(strings.NewReader(out+out)), 0)
	if err != nil || len(entries) != 2 || entries[1].path != "a b.txt" || entries[1].status != 'M' {
		t.Fatalf("got %+v, %v", entries, err)
	}
	if _, err := readRaw(bufio.NewReader(io.MultiReader(strings.NewReader(out), strings.NewReader(":100644 100644 x"))), 0); err == nil {
		t.Error("a truncated entry was accepted")
	}
}

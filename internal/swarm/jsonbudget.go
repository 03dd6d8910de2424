package swarm

import (
	"fmt"
	"io/fs"
	"strings"
)

// MaxJSONValues is the most JSON values (objects, arrays, strings, numbers,
// literals) swarm-gate parses from the .swarm/ files of one commit in all.
// Parsed JSON takes some 100 bytes per value, so a file of "[1,1,1,...]"
// costs fifty times its size: this, not the file size, is what bounds the
// memory a hostile .swarm/ folder can take (about 130 MB). The plugin's
// files of a real project hold some tens of thousands.
const MaxJSONValues = 1_000_000

// CountJSONValues returns an upper bound of the number of values a JSON
// parser builds from data: one, plus one per "[", "{" and "," outside
// strings. It reads data once and allocates nothing.
func CountJSONValues(data []byte) int {
	n := 1
	in, esc := false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '[' || c == '{' || c == ',':
			n++
		}
	}
	return n
}

// WithJSONBudget returns fsys with a budget of max JSON values: reading a
// file whose name ends in ".json" or ".jsonl" with ReadFile debits the
// values it holds (CountJSONValues), and fails with an error naming the
// file when they are more than what is left, before anything parses it.
// Load reads each side through one; the pipeline wraps the trees it hands
// to other readers of .swarm/ files (the SAST baseline) the same way. The
// result implements fs.StatFS, fs.ReadDirFS and fs.ReadFileFS.
func WithJSONBudget(fsys fs.FS, max int) fs.FS {
	return &budgetFS{FS: fsys, left: max, max: max}
}

// budgetFS is WithJSONBudget's fs.FS.
type budgetFS struct {
	fs.FS
	left, max int
}

func (b *budgetFS) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(b.FS, name) }
func (b *budgetFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(b.FS, name) }

func (b *budgetFS) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(b.FS, name)
	if err != nil || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")) {
		return data, err
	}
	if err := b.spend(CountJSONValues(data)); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// spend debits n values, or says why it cannot.
func (b *budgetFS) spend(n int) error {
	if n > b.left {
		return fmt.Errorf("holds up to %d JSON values, more than the %d swarm-gate still parses for this commit (it parses at most %d from all .swarm/ files of a commit, to bound its memory; the plugin's files hold some tens of thousands): check that the file was not generated or padded", n, b.left, b.max)
	}
	b.left -= n
	return nil
}

// jsonBudget returns the budget fsys carries, or nil.
func jsonBudget(fsys fs.FS) *budgetFS {
	b, _ := fsys.(*budgetFS)
	return b
}

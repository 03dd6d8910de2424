package gitattr

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReason(t *testing.T) {
	fsys := fstest.MapFS{
		".gitattributes":     {Data: []byte("# generated code\n*.gen.ts linguist-generated\nassets/** linguist-vendored\ndist/** -linguist-generated\n*.pb.go linguist-generated=true\nlib/keep.js linguist-vendored=false\n[attr]gen linguist-generated\nproto/*.ts gen\n")},
		"web/.gitattributes": {Data: []byte("legacy/*.js linguist-vendored\n*.gen.ts -linguist-generated\n")},
	}
	counted := &statCounter{FS: fsys}
	for _, l := range []*Linguist{New(fsys), NewKnown(counted, []string{".gitattributes", "web/.gitattributes"})} {
		testReasons(t, l)
	}
	// NewKnown looks only in the two directories it was told of.
	if got := strings.Join(counted.stats, ","); got != ".gitattributes,web/.gitattributes" {
		t.Errorf("NewKnown stat'ed %s", got)
	}
}

// TestNewLazy: NewLazy looks in each directory until more than after were
// looked in, then lists the tree once and looks only where it lists a
// file; a failing list leaves it looking everywhere. The answers are New's.
func TestNewLazy(t *testing.T) {
	fsys := fstest.MapFS{
		".gitattributes":     {Data: []byte("# generated code\n*.gen.ts linguist-generated\nassets/** linguist-vendored\ndist/** -linguist-generated\n*.pb.go linguist-generated=true\nlib/keep.js linguist-vendored=false\n[attr]gen linguist-generated\nproto/*.ts gen\n")},
		"web/.gitattributes": {Data: []byte("legacy/*.js linguist-vendored\n*.gen.ts -linguist-generated\n")},
	}
	files := []string{".gitattributes", "web/.gitattributes"}
	for _, tc := range []struct {
		after int
		fail  bool
		lists int
		stats string
	}{
		{after: 0, lists: 1, stats: ".gitattributes,web/.gitattributes"},
		{after: 3, lists: 1, stats: ".gitattributes,src/.gitattributes,assets/.gitattributes,web/.gitattributes"},
		{after: 100, lists: 0, stats: ".gitattributes,src/.gitattributes,assets/.gitattributes,assets/jquery/.gitattributes,dist/.gitattributes,api/.gitattributes,lib/.gitattributes,proto/.gitattributes,web/.gitattributes,web/legacy/.gitattributes,web/src/.gitattributes,legacy/.gitattributes"},
		{after: 3, fail: true, lists: 1, stats: ".gitattributes,src/.gitattributes,assets/.gitattributes,assets/jquery/.gitattributes,dist/.gitattributes,api/.gitattributes,lib/.gitattributes,proto/.gitattributes,web/.gitattributes,web/legacy/.gitattributes,web/src/.gitattributes,legacy/.gitattributes"},
	} {
		counted := &statCounter{FS: fsys}
		lists := 0
		l := NewLazy(counted, func() ([]string, error) {
			lists++
			if tc.fail {
				return nil, fs.ErrPermission
			}
			return files, nil
		}, tc.after)
		testReasons(t, l)
		if got := strings.Join(counted.stats, ","); lists != tc.lists || got != tc.stats {
			t.Errorf("after %d, list failing %v: listed %d times, stat'ed %s; want %d, %s", tc.after, tc.fail, lists, got, tc.lists, tc.stats)
		}
	}
}

// statCounter records the files stat'ed.
type statCounter struct {
	fs.FS
	stats []string
}

func (c *statCounter) Stat(name string) (fs.FileInfo, error) {
	c.stats = append(c.stats, name)
	return fs.Stat(c.FS, name)
}

func testReasons(t *testing.T, l *Linguist) {
	t.Helper()
	cases := []struct {
		path, reason string
		set          bool
	}{
		{"src/api.gen.ts", "generated (.gitattributes linguist-generated)", true},
		{"assets/jquery/jquery.js", "vendored (.gitattributes linguist-vendored)", true},
		{"dist/cli.js", "", true},
		{"api/x.pb.go", "generated (.gitattributes linguist-generated)", true},
		{"lib/keep.js", "", true},
		{"proto/a.ts", "generated (.gitattributes linguist-generated)", true},
		{"web/legacy/old.js", "vendored (.gitattributes linguist-vendored)", true},
		{"web/src/a.gen.ts", "", true}, // the deeper file wins
		{"src/main.go", "", false},
		{"legacy/old.js", "", false}, // web/'s pattern is relative to web/
	}
	for _, c := range cases {
		reason, set := l.Reason(c.path)
		if reason != c.reason || set != c.set {
			t.Errorf("Reason(%q) = %q, %v; want %q, %v", c.path, reason, set, c.reason, c.set)
		}
	}
	if errs := l.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

func TestReasonBadFiles(t *testing.T) {
	l := New(fstest.MapFS{
		".gitattributes":       {Data: []byte(strings.Repeat("x", MaxFileSize+1))},
		"sub/.gitattributes":   {Data: []byte("[attr]macro linguist-generated\n*.js macro\n")},
		"dir/.gitattributes/x": {Data: []byte("")},
	})
	if _, set := l.Reason("sub/a.js"); set {
		t.Error("a macro outside the root file must not apply")
	}
	if _, set := l.Reason("dir/a.js"); set {
		t.Error("a .gitattributes directory applies nothing")
	}
	errs := l.Errors()
	if len(errs) < 2 || !strings.Contains(errs[0].Error(), ".gitattributes: 1048577 bytes, over the 1048576-byte limit") {
		t.Errorf("errors: %v", errs)
	}
	var nilL *Linguist
	if r, set := nilL.Reason("a"); r != "" || set {
		t.Error("a nil Linguist says nothing")
	}
}

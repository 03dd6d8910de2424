// Package fdtest lists the file descriptors a test's process holds open, so
// that tests can check that code closes the files it opens (git pack files
// kept open for an evaluation, for one). Linux only: it reads /proc/self/fd
// and skips the test where that cannot be listed.
package fdtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Open returns how many file descriptors this process holds (all) and the
// paths of those open on files under dir (under; removed files included,
// as the kernel names them). dir is compared after resolving its symbolic
// links. It skips the test when /proc/self/fd cannot be listed.
func Open(t testing.TB, dir string) (all int, under []string) {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list open files: %v", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir // removed already: compare the path as given
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // the descriptor ReadDir itself used, closed since
		}
		all++
		if strings.HasPrefix(target, real+string(filepath.Separator)) || strings.HasPrefix(target, dir+string(filepath.Separator)) {
			under = append(under, target)
		}
	}
	return all, under
}

// Under is how many file descriptors of this process are open on files
// under dir (see Open).
func Under(t testing.TB, dir string) int {
	t.Helper()
	_, under := Open(t, dir)
	return len(under)
}

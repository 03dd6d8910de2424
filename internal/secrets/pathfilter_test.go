package secrets

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// TestPathFilterAgrees: the global allowlist tried one expression at a
// time behind its substring prefilter answers as gitleaks' joined
// expression does, on paths each of its expressions matches, near misses,
// random mixtures of their pieces, and the paths under ../shared.
func TestPathFilterAgrees(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"gitleaks.toml", "a/b/logo.PNG", "x.Svg", "fonts/a.woff2", "doc.PDF", "go.mod", "x/go.sum", "go.work.sum",
		"vendor/modules.txt", "vendor/github.com/x/y.go", "gradlew", "sub/gradlew.bat", "gradle.lockfile", "mvnw.cmd",
		".mvn/wrapper/MavenWrapperDownloader.java", "node_modules/x/index.js", "web/package-lock.json", "yarn.lock",
		"bower_components/a.js", "static/jquery-3.1.min.js", "static/bootstrap.bundle.min.js.map", "javascript.json",
		"Pipfile.lock", "poetry.lock", "venv/lib/python3.11/site.py", "ENV/lib64/x", "lib/python3.10/x.py",
		"python/3.9/lib/x", "requests-2.31.0.dist-info/METADATA", "vendor/bundle/x.rb", "x.gem",
		"gradle/verification-metadata.xml", "Database.refactorlog", "sub/.git", "src/main.go", "src/api/key.go",
		"README.md", "go.mod.bak", "gogo.sum", "notvendor/modules.txt", "xgradlew", "node_modulesx/a", "a.pngx",
		"Go.Mod", "sub/Vendor/modules.txt", "dist-info", "x-1.dist-info", "élan/go.mod", "ünï/x.png", "K\u212a.png",
	}
	// Pieces of the expressions, mixed at random.
	pieces := []string{"/", ".", "-", "go", "mod", "sum", "vendor", "png", "lib", "python3", "3.1", "dist-info", "lock",
		"node_modules", "gradlew", "bat", "min", "js", "map", "env", "64", "x", "A", "\u212a", "é"}
	r := rand.New(rand.NewPCG(3, 14))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := 1 + r.IntN(8); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		paths = append(paths, b.String())
	}
	_ = filepath.WalkDir("../../../shared", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, filepath.ToSlash(p))
		}
		return nil
	})
	if _, err := os.Stat("../../../shared"); err == nil && len(paths) < 21000 {
		t.Errorf("only %d paths", len(paths))
	}
	allowed := 0
	for _, p := range paths {
		want := false
		for _, a := range s.global {
			if len(a.Paths) > 0 && a.MatchCondition == config.AllowlistMatchOr && a.PathAllowed(p) {
				want = true
			}
		}
		if got := s.PathAllowed(p); got != want {
			t.Errorf("PathAllowed(%q) = %v, gitleaks says %v", p, got, want)
		}
		if want {
			allowed++
		}
	}
	if allowed < 40 {
		t.Errorf("only %d of %d paths are allowed: the cases do not reach the expressions", allowed, len(paths))
	}
	filtered := 0
	for _, f := range s.globalPaths {
		for _, e := range f {
			if e.need != nil {
				filtered++
			}
		}
	}
	if filtered < 15 {
		t.Errorf("only %d path expressions have a prefilter", filtered)
	}
}

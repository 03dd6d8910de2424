package placeholder

import "testing"

func TestFamilyOf(t *testing.T) {
	for p, want := range map[string]*family{
		"a.go": famGo, "src/lib.RS": famRust, "x.tsx": famJS, "data.json": famC, "A.cs": famCS, "i.php": famPHP, "s.css": famCSS, "s.scss": famSCSS, "p.ps1": famPS, "A.java": famJava, "b.kt": famJava, "Jenkinsfile": famJava, "c.h": famC, "a.pyi": famPython, "Makefile": famConfig,
		"build/Dockerfile.prod": famConfig, "ci.yaml": famConfig, "run.bash": famShell, "q.sql": famSQL, "page.vue": famHTML,
		"README.md": famMD, "docs/page.mdx": famMDX, "notes.txt": famProse, "LICENSE": famProse, "docs/guide.rst": famProse, "init.lua": famText, "main.tf": famHCL, "Gemfile": famRuby, "a.rb": famRuby, "a.pl": famHash,
	} {
		if got := familyOf(p); got != want {
			t.Errorf("familyOf(%q) = %s, want %s", p, got.name, want.name)
		}
	}
}

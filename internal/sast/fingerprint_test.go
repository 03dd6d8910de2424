package sast

import (
	"strings"
	"testing"
)

// specExample is the worked example of spec section 7.3.
const specExample = "package main\n\tcmd := exec.Command(\"sh\", \"-c\", x)  \nfunc f() {}\n"

func TestFingerprintSpecExample(t *testing.T) {
	findings, skipped := ScanFile("app/main.go", []byte(specExample))
	if skipped != "" || len(findings) != 1 {
		t.Fatalf("scan: %v %q", findings, skipped)
	}
	if f := findings[0]; f.RuleID != "sast/go-shell-injection" || f.Line != 2 || f.Column != 9 {
		t.Fatalf("finding %+v", f)
	}
	Fingerprints(findings, map[string][]byte{"app/main.go": []byte(specExample)})
	f := findings[0]
	if want := "app/main.go|sast/go-shell-injection|bd098d5b652726eb|#0"; f.Fingerprint != want {
		t.Errorf("fingerprint %s, want %s", f.Fingerprint, want)
	}
	if want := "app/main.go|sast/go-shell-injection|5bf5636bc4c23d4c"; f.ReflowKey != want {
		t.Errorf("reflow key %s, want %s", f.ReflowKey, want)
	}
	if !f.Stable {
		t.Error("not stable")
	}
}

// scanPrint scans and fingerprints one file, returning its findings.
func scanPrint(t *testing.T, path, content string) []Finding {
	t.Helper()
	findings, skipped := ScanFile(path, []byte(content))
	if skipped != "" {
		t.Fatalf("skipped: %s", skipped)
	}
	Fingerprints(findings, map[string][]byte{path: []byte(content)})
	return findings
}

func TestFingerprintStability(t *testing.T) {
	base := scanPrint(t, "app/main.go", specExample)[0]
	for _, tc := range []struct {
		name, content string
		sameFP        bool // fingerprint unchanged
		sameReflow    bool
	}{
		{"lines added above the window", "// header\n\n" + specExample, true, true},
		{"a line inserted just above (into the window)", strings.Replace(specExample, "\n", "\n// note\n", 1), false, true},
		{"indentation and trailing spaces changed", "package main\n    cmd := exec.Command(\"sh\", \"-c\", x)\nfunc f() {}   \n", true, true},
		{"CRLF line endings", strings.ReplaceAll(specExample, "\n", "\r\n"), true, true},
		{"a BOM", "\ufeff" + specExample, true, true},
		{"edit in the line below (inside the window)", "package main\n\tcmd := exec.Command(\"sh\", \"-c\", x)  \nfunc g() {}\n", false, true},
		{"edit in the line above (inside the window)", "package app\n\tcmd := exec.Command(\"sh\", \"-c\", x)  \nfunc f() {}\n", false, true},
		{"edit in the flagged line", "package main\n\tcmd := exec.Command(\"bash\", \"-c\", x)  \nfunc f() {}\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scanPrint(t, "app/main.go", tc.content)
			if len(got) != 1 {
				t.Fatalf("%d findings", len(got))
			}
			if (got[0].Fingerprint == base.Fingerprint) != tc.sameFP {
				t.Errorf("fingerprint %s vs %s: same = %v, want %v", got[0].Fingerprint, base.Fingerprint, !tc.sameFP, tc.sameFP)
			}
			if (got[0].ReflowKey == base.ReflowKey) != tc.sameReflow {
				t.Errorf("reflow key %s vs %s: same = %v, want %v", got[0].ReflowKey, base.ReflowKey, !tc.sameReflow, tc.sameReflow)
			}
		})
	}
}

// TestFingerprintLineMovedAboveFinding: a line moved from below the finding
// to well above it leaves the 3-line window, and so the fingerprint, as is.
func TestFingerprintLineMovedAboveFinding(t *testing.T) {
	before := "package main\n\nfunc f() {\n\tcmd := exec.Command(\"sh\")\n\tcmd.Run()\n}\n\nvar moved = 1\n"
	after := "package main\n\nvar moved = 1\n\nfunc f() {\n\tcmd := exec.Command(\"sh\")\n\tcmd.Run()\n}\n"
	a, b := scanPrint(t, "m.go", before)[0], scanPrint(t, "m.go", after)[0]
	if a.Line == b.Line {
		t.Fatal("the finding did not move")
	}
	if a.Fingerprint != b.Fingerprint || a.ReflowKey != b.ReflowKey {
		t.Fatalf("fingerprints differ: %s / %s", a.Fingerprint, b.Fingerprint)
	}
}

func TestFingerprintOccurrenceIndex(t *testing.T) {
	// Identical windows: the lines around each call are identical too.
	src := "x\nexec.Command(a)\nx\nexec.Command(a)\nx\nexec.Command(b)\nx\n"
	got := scanPrint(t, "d.go", src)
	if len(got) != 3 {
		t.Fatalf("%d findings", len(got))
	}
	if !strings.HasSuffix(got[0].Fingerprint, "|#0") || !strings.HasSuffix(got[1].Fingerprint, "|#1") || !strings.HasSuffix(got[2].Fingerprint, "|#0") {
		t.Fatalf("occurrence indexes: %s, %s, %s", got[0].Fingerprint, got[1].Fingerprint, got[2].Fingerprint)
	}
	if strings.TrimSuffix(got[0].Fingerprint, "#0") != strings.TrimSuffix(got[1].Fingerprint, "#1") {
		t.Fatalf("duplicates should share relFile|rule|h16: %s, %s", got[0].Fingerprint, got[1].Fingerprint)
	}
	if got[0].ReflowKey != got[1].ReflowKey {
		t.Fatal("duplicates should share a reflow key")
	}
	// Two matches on one line are two occurrences of one window.
	got = scanPrint(t, "e.go", "exec.Command(a); exec.Command(b)\n")
	if len(got) != 2 || !strings.HasSuffix(got[1].Fingerprint, "|#1") {
		t.Fatalf("same-line duplicates: %+v", got)
	}
}

func TestFingerprintUnstable(t *testing.T) {
	findings := []Finding{
		{RuleID: "sast/go-shell-injection", File: "gone.go", Line: 7},
		{RuleID: "sast/go-shell-injection", File: "gone.go", Line: 7},
		{RuleID: "sast/go-shell-injection", File: "../outside.go", Line: 3},
		{RuleID: "sast/go-shell-injection", File: `sub\win.go`, Line: 1},
		{RuleID: "sast/go-shell-injection", File: "./a/../b.go", Line: 1},
		{RuleID: "sast/go-shell-injection", File: "..hidden.go", Line: 1}, // the plugin's test is a bare ".." prefix
	}
	Fingerprints(findings, map[string][]byte{"../outside.go": []byte("exec.Command(x)"), "sub/win.go": []byte("exec.Command(x)"), "b.go": []byte(""), "..hidden.go": []byte("exec.Command(x)")})
	want := []struct {
		fp     string
		stable bool
	}{
		{"gone.go|sast/go-shell-injection|L7|UNSTABLE|#0", false},
		{"gone.go|sast/go-shell-injection|L7|UNSTABLE|#1", false},
		{"../outside.go|sast/go-shell-injection|L3|UNSTABLE|#0", false},
		{"sub/win.go|sast/go-shell-injection|" + hash16("\nexec.Command(x)\n") + "|#0", true},
		{"b.go|sast/go-shell-injection|" + hash16("\n\n") + "|#0", true}, // line past the end: ""
		{"..hidden.go|sast/go-shell-injection|L1|UNSTABLE|#0", false},
	}
	for i, w := range want {
		f := findings[i]
		if f.Fingerprint != w.fp || f.Stable != w.stable || (f.ReflowKey == "") == w.stable {
			t.Errorf("%d: got %q stable=%v reflow=%q, want %q stable=%v", i, f.Fingerprint, f.Stable, f.ReflowKey, w.fp, w.stable)
		}
	}
}

// TestFingerprintTrim: the window is trimmed with JavaScript's trim (BOM and
// Unicode spaces, but not U+0085, which Go's TrimSpace would strip).
func TestFingerprintTrim(t *testing.T) {
	for _, tc := range []struct {
		line, trimmed string
	}{
		{"\ufeff\u00a0exec.Command(x)\u3000\r", "exec.Command(x)"},
		{"\u0085exec.Command(x)", "\u0085exec.Command(x)"},
		{"\u2028exec.Command(x)\u2029", "exec.Command(x)"},
	} {
		f := []Finding{{RuleID: "r", File: "t.go", Line: 1}}
		FingerprintFile(f, []byte(tc.line))
		if want := "t.go|r|" + hash16("\n"+tc.trimmed+"\n") + "|#0"; f[0].Fingerprint != want {
			t.Errorf("%q: got %s, want %s", tc.line, f[0].Fingerprint, want)
		}
		if want := "t.go|r|" + hash16(tc.trimmed); f[0].ReflowKey != want {
			t.Errorf("%q: reflow %s, want %s", tc.line, f[0].ReflowKey, want)
		}
	}
}

func TestParseFingerprint(t *testing.T) {
	for _, tc := range []struct {
		fp, rel, rule string
		stable, ok    bool
	}{
		{"app/main.go|sast/go-shell-injection|bd098d5b652726eb|#0", "app/main.go", "sast/go-shell-injection", true, true},
		{"a.go|sast/x|L3|UNSTABLE|#2", "a.go", "sast/x", false, true},
		{"a.go|sast/x", "", "", false, false},
	} {
		rel, rule, stable, ok := ParseFingerprint(tc.fp)
		if rel != tc.rel || rule != tc.rule || stable != tc.stable || ok != tc.ok {
			t.Errorf("%s: got %q %q %v %v", tc.fp, rel, rule, stable, ok)
		}
	}
}

package sast

import (
	"strconv"
	"strings"
	"testing"
)

// baselineOf captures a baseline from a scan, as a first write does.
func baselineOf(findings []Finding) *Baseline {
	b := &Baseline{SchemaVersion: SchemaReflow, ReflowKeys: []string{}}
	for _, f := range findings {
		b.Fingerprints = append(b.Fingerprints, f.Fingerprint)
		b.ReflowKeys = append(b.ReflowKeys, f.ReflowKey)
	}
	return b
}

// names names the findings of a partition bucket as rule@line.
func names(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, strings.TrimPrefix(f.RuleID, "sast/")+"@"+strconv.Itoa(f.Line))
	}
	return strings.Join(out, ",")
}

func TestPartition(t *testing.T) {
	base := "package main\n\nfunc f() {\n\texec.Command(\"a\")\n}\n\nfunc g() {\n\texec.Command(\"b\")\n}\n"
	for _, tc := range []struct {
		name               string
		head               string
		legacy             bool // a 1.0.0 baseline: exact matching only
		pre, moved, newFnd string
	}{
		{"unchanged", base, false, "go-shell-injection@4,go-shell-injection@8", "", ""},
		{"lines inserted above: same windows", "// c\n// d\n" + base, false, "go-shell-injection@6,go-shell-injection@10", "", ""},
		{"an edit inside a window: moved, not new",
			strings.Replace(base, "func g() {", "func g2() {", 1), false, "go-shell-injection@4", "go-shell-injection@8", ""},
		{"the same edit against a 1.0.0 baseline: new",
			strings.Replace(base, "func g() {", "func g2() {", 1), true, "go-shell-injection@4", "", "go-shell-injection@8"},
		{"the flagged line edited: new",
			strings.Replace(base, `exec.Command("b")`, `exec.Command("c")`, 1), false, "go-shell-injection@4", "", "go-shell-injection@8"},
		{"a second identical finding: #1 is new",
			base + "\nfunc f() {\n\texec.Command(\"a\")\n}\n", false, "go-shell-injection@4,go-shell-injection@8", "", "go-shell-injection@12"},
		{"an identical finding inserted above: the shifted one is moved",
			"package main\n\nfunc f() {\n\texec.Command(\"a\")\n}\n\n" + strings.TrimPrefix(base, "package main\n\n"), false,
			"go-shell-injection@4,go-shell-injection@12", "", "go-shell-injection@8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := baselineOf(scanPrint(t, "m.go", base))
			if tc.legacy {
				b.SchemaVersion, b.ReflowKeys = SchemaLegacy, nil
			}
			pre, moved, nw := Partition(scanPrint(t, "m.go", tc.head), b)
			if names(pre) != tc.pre || names(moved) != tc.moved || names(nw) != tc.newFnd {
				t.Errorf("pre %q moved %q new %q; want %q %q %q", names(pre), names(moved), names(nw), tc.pre, tc.moved, tc.newFnd)
			}
			// The merge-base variant agrees when the base is a fresh scan.
			if !tc.legacy {
				mb := scanPrint(t, "m.go", base)
				pre2, moved2, nw2 := PartitionMergeBase(scanPrint(t, "m.go", tc.head), mb)
				if names(pre2) != tc.pre || names(moved2) != tc.moved || names(nw2) != tc.newFnd {
					t.Errorf("merge base: pre %q moved %q new %q", names(pre2), names(moved2), names(nw2))
				}
			}
		})
	}
}

// TestPartitionConsumesReflow: an exact match uses up its reflow key, so a
// moved copy of the same line is new, not moved (one baseline entry never
// absorbs two findings).
func TestPartitionConsumesReflow(t *testing.T) {
	b := baselineOf(scanPrint(t, "m.go", "x\nexec.Command(a)\ny\n"))
	head := scanPrint(t, "m.go", "x\nexec.Command(a)\ny\nz\nexec.Command(a)\nw\n")
	pre, moved, nw := Partition(head, b)
	if len(pre) != 1 || len(moved) != 0 || len(nw) != 1 || nw[0].Line != 5 {
		t.Fatalf("pre %d moved %d new %v", len(pre), len(moved), names(nw))
	}
}

func TestPartitionUnstable(t *testing.T) {
	f := []Finding{{RuleID: "sast/go-pprof", File: "gone.go", Line: 4}}
	Fingerprints(f, nil)
	b := &Baseline{Fingerprints: []string{f[0].Fingerprint}, ReflowKeys: []string{""}}
	if pre, moved, nw := Partition(f, b); len(pre)+len(moved) != 0 || len(nw) != 1 {
		t.Fatal("an unstable finding must be new even when its fingerprint is in the baseline")
	}
	// Never fingerprinted: new.
	if _, _, nw := Partition([]Finding{{RuleID: "r"}}, b); len(nw) != 1 {
		t.Fatal("a finding without a fingerprint must be new")
	}
	if _, _, nw := Partition(f, nil); len(nw) != 1 {
		t.Fatal("no baseline: everything is new")
	}
}

func TestAddedEntries(t *testing.T) {
	base, err := ParseBaseline("b.json", []byte(baselineV11))
	if err != nil {
		t.Fatal(err)
	}
	head, err := ParseBaseline("h.json", []byte(strings.NewReplacer(
		`"gone.go|sast/go-pprof|L4|UNSTABLE|#0"
  ],`, `"gone.go|sast/go-pprof|L4|UNSTABLE|#0",
    "app/x.go|sast/go-pprof|aaaaaaaaaaaaaaaa|#0",
    "app/y.go|sast/go-weak-tls|bbbbbbbbbbbbbbbb|#0"
  ],`,
		`""
  ],`, `"",
    "app/x.go|sast/go-pprof|cccccccccccccccc",
    "app/y.go|sast/go-weak-tls|dddddddddddddddd"
  ],`,
		`"triage_log": [`, `"triage_log": [
    {"fingerprint": "app/y.go|sast/go-weak-tls|bbbbbbbbbbbbbbbb|#0", "rel_file": "app/y.go", "rule_id": "sast/go-weak-tls",
     "rationale": "test fixture", "actor": "ses_pr", "absorbed_at": "2026-07-03T00:00:00.000Z"},`,
	).Replace(baselineV11)))
	if err != nil {
		t.Fatal(err)
	}
	added := AddedEntries(base, head)
	if len(added) != 2 {
		t.Fatalf("%d added: %+v", len(added), added)
	}
	if a := added[0]; a.Fingerprint != "app/x.go|sast/go-pprof|aaaaaaaaaaaaaaaa|#0" || a.RelFile != "app/x.go" || a.RuleID != "sast/go-pprof" ||
		a.ReflowKey != "app/x.go|sast/go-pprof|cccccccccccccccc" || a.Triage != nil || a.Snapshot != nil {
		t.Errorf("added[0] %+v", a)
	}
	if a := added[1]; a.Triage == nil || a.Triage.Actor != "ses_pr" || a.Triage.Rationale != "test fixture" {
		t.Errorf("added[1] %+v", a)
	}
	if got := AddedEntries(nil, base); len(got) != 2 || got[0].Snapshot == nil || got[0].Snapshot.Line != 2 {
		t.Errorf("against no base: %+v", got)
	}
	if got := AddedEntries(base, nil); got != nil {
		t.Errorf("no head: %+v", got)
	}
	if got := AddedEntries(head, base); len(got) != 0 {
		t.Errorf("removals are not additions: %+v", got)
	}
}

// TestPartitionCopyAboveOriginal: a copy of a flagged line added above the
// original is new, not "moved" (exact matches are taken first).
func TestPartitionCopyAboveOriginal(t *testing.T) {
	base := []byte("package a\n\nfunc A() {\n\texec.Command(\"ls\").Run()\n}\n")
	head := []byte("package a\n\nfunc Z(user string) {\n\texec.Command(\"ls\").Run()\n}\nfunc A() {\n\texec.Command(\"ls\").Run()\n}\n")
	bf, _ := ScanFile("a.go", base)
	FingerprintFile(bf, base)
	hf, _ := ScanFile("a.go", head)
	FingerprintFile(hf, head)
	if len(bf) != 1 || len(hf) != 2 {
		t.Fatalf("%d base, %d head findings", len(bf), len(hf))
	}
	pre, moved, fresh := PartitionMergeBase(hf, bf)
	if len(pre) != 1 || len(moved) != 0 || len(fresh) != 1 || fresh[0].Line != 4 {
		t.Errorf("pre %d, moved %d, new %+v; want the copy on line 4 new", len(pre), len(moved), fresh)
	}
}

package sast

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func FuzzParseBaseline(f *testing.F) {
	// The corpus's baselines, read in place (none when ../shared is absent).
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", ".swarm", "evidence", "*", "sast-baseline.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("reading seed %s: %v", p, err)
		}
		f.Add(data)
	}
	f.Add([]byte(baselineV11))
	f.Add([]byte(`{"schema_version":"1.0.0","fingerprints":[]}`))
	f.Add([]byte(`{"schema_version":"1.1.0","fingerprints":["a"],"reflow_keys":[]}`))
	f.Add([]byte("\ufeff{}"))
	f.Add([]byte(`{"schema_version":"1.1.0","fingerprints":[],"triage_log":[{"actor":1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseBaseline("f.json", data)
		if err != nil {
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != "f.json" || ae.Line < 1 || ae.Line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error %v does not name the file and a line of it", err)
			}
			return
		}
		if b.SchemaVersion != SchemaLegacy && b.SchemaVersion != SchemaReflow {
			t.Fatalf("accepted schema %q", b.SchemaVersion)
		}
		if b.ReflowKeys != nil && (b.SchemaVersion != SchemaReflow || len(b.ReflowKeys) != len(b.Fingerprints)) {
			t.Fatalf("reflow keys %d for %d fingerprints (%s)", len(b.ReflowKeys), len(b.Fingerprints), b.SchemaVersion)
		}
		for _, fp := range b.Fingerprints {
			if !b.Has(fp) {
				t.Fatalf("Has(%q) false", fp)
			}
		}
		AddedEntries(nil, b)
		Partition(nil, b)
	})
}

func FuzzScanFile(f *testing.F) {
	for _, tc := range ruleCases {
		f.Add(tc.path, []byte(tc.content))
	}
	f.Add("a.py", []byte("\ufeffx = 1\r\nassert x \r\n\xe2\x82 eval (y)"))
	f.Add("a.js", []byte("😀 token: '0123456789abcdefghijk' \u2028 eval\u00a0(x)"))
	f.Fuzz(func(t *testing.T, path string, content []byte) {
		findings, skipped := ScanFile(path, content)
		if skipped != "" {
			return
		}
		if want := referenceScan(path, content); !reflect.DeepEqual(findings, want) {
			t.Fatalf("prefiltered scan differs from the reference\n got %+v\nwant %+v", findings, want)
		}
		text := jsText(content)
		lines := strings.Split(text, "\n")
		for _, fd := range findings {
			if fd.Line < 1 || fd.Line > len(lines) {
				t.Fatalf("line %d outside 1..%d", fd.Line, len(lines))
			}
			line := strings.TrimSuffix(lines[fd.Line-1], "\r")
			if fd.Excerpt != line {
				t.Fatalf("excerpt %q, line %q", fd.Excerpt, line)
			}
			if fd.Column < 1 || fd.Column > utf16Len(line)+1 {
				t.Fatalf("column %d outside line %q", fd.Column, line)
			}
			if !utf8.ValidString(fd.Excerpt) {
				t.Fatalf("excerpt %q is not UTF-8", fd.Excerpt)
			}
			if m := MaskedExcerpt(fd); utf8.RuneCountInString(m) > MaxExcerpt {
				t.Fatalf("masked excerpt too long: %q", m)
			}
		}
		FingerprintFile(findings, content)
		for _, fd := range findings {
			// A readable file is stable unless its path leaves the
			// workspace (by the plugin's test, any path starting "..").
			if stable := !outside(RelFile(path)); fd.Stable != stable || (fd.ReflowKey != "") != stable {
				t.Fatalf("stable = %v, want %v: %+v", fd.Stable, stable, fd)
			}
		}
		// asciiLower keeps offsets and touches ASCII capitals only.
		low := asciiLower(text)
		if len(low) != len(text) {
			t.Fatal("asciiLower changed the length")
		}
		for i := 0; i < len(text); i++ {
			c := text[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if low[i] != c {
				t.Fatalf("asciiLower at %d: %q -> %q", i, text[i], low[i])
			}
		}
	})
}

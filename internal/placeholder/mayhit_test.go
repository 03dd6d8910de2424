package placeholder

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mayHitRef is mayHit without its letter-pair skip: every position is
// looked at. MayHit must give the same answer for every line.
func mayHitRef(s string) bool {
	returns := false
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case c == 'i':
			if hasFoldAt(s, i, "implemented") {
				return true
			}
			continue
		case c == 'r':
			if !returns && hasFoldAt(s, i, "return") {
				if _, _, ok := stubReturnAt(s, nil, 0); ok {
					return true
				}
				returns = true
			}
			continue
		case c == 's' && hasFoldAt(s, i, "swarm-gate"):
			return true
		case i > 0 && isWordByte(s[i-1]):
			continue
		}
		switch c {
		case 't':
			if wordHit(s, i, "todo") || wordHit(s, i, "tbd") {
				return true
			}
		case 'f':
			if wordHit(s, i, "fixme") {
				return true
			}
		case 'x':
			if wordHit(s, i, "xxx") {
				return true
			}
		case 'h':
			if wordHit(s, i, "hack") {
				return true
			}
		case 'p':
			if wordHit(s, i, "placeholder") {
				return true
			}
		case 's':
			if wordHit(s, i, "stub") {
				return true
			}
		case 'w':
			if wordHit(s, i, "wip") {
				return true
			}
		}
	}
	return hasInvisible(s) // a marker split by one (hiddenMarker)
}

// mayHitPieces build lines that come near every check of mayHit.
var mayHitPieces = []string{"TODO", "todo", "ToDo", "tbd", "TBD", "FIXME", "fixme", "xxx", "XXX", "HACK", "hack", "placeholder", "PLACEHOLDER", "stub", "STUB", "wip", "WIP",
	"implemented", "NotImplemented", "IMPLEMENTED", "swarm-gate", "SWARM-GATE", "swarm\rgate", "return", "RETURN", "return null;", "return None", "return 0;", "return nil", "return undefined;",
	"return true;", " ", "_", "x", "1", "-", ":", "(", ")", ";", "#", "//", "/*", "\"", "'", "\r", "\t", "\x00", "\xff", "é", "I", "m", "r", "e", "T", "o", "i"}

func TestMayHitSkipSameAnswers(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := MayHit(s), mayHitRef(s); got != want {
			t.Fatalf("MayHit(%q) = %v, mayHitRef = %v", s, got, want)
		}
	}
	// Every line of this package's sources and test data.
	n := 0
	// The gates package and this one: some 20,000 lines of real Go.
	for _, dir := range []string{".", "../../gates"} {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(b), "\n") {
				check(l)
				n++
			}
			return nil
		})
	}
	if n < 10000 {
		t.Fatalf("only %d lines read", n)
	}
	// Lines made of the pieces, and every prefix and suffix of them.
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 200000; k++ {
		var b strings.Builder
		for j := rng.Intn(6); j >= 0; j-- {
			b.WriteString(mayHitPieces[rng.Intn(len(mayHitPieces))])
		}
		s := b.String()
		check(s)
		check(s[1:])
		check(s[:len(s)-1])
	}
}

func FuzzMayHit(f *testing.F) {
	for _, p := range mayHitPieces {
		f.Add(p + " " + p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := MayHit(s), mayHitRef(s); got != want {
			t.Fatalf("MayHit(%q) = %v, mayHitRef = %v", s, got, want)
		}
	})
}

// TestMayHitEveryOffset: MayHit looks only at pairs at even offsets, so
// each word is tried at odd and even offsets, last on the line or not, in
// either case, after a space or after a word byte (where only the words
// found anywhere hit).
func TestMayHitEveryOffset(t *testing.T) {
	words := []string{"implemented", "swarm-gate", "todo", "tbd", "fixme", "xxx", "hack", "placeholder", "stub", "wip", "todo_x"}
	for _, w := range words {
		for _, spelt := range []string{w, strings.ToUpper(w)} {
			for pad := 0; pad < 4; pad++ {
				for _, before := range []string{" ", "a"} {
					for _, after := range []string{"", " x", "."} {
						s := strings.Repeat("-", pad) + before + spelt + after
						want := before == " " || w == "implemented" || w == "swarm-gate"
						if got := MayHit(s); got != want || got != mayHitRef(s) {
							t.Errorf("MayHit(%q) = %v, want %v (mayHitRef %v)", s, got, want, mayHitRef(s))
						}
					}
				}
			}
		}
	}
	// hasInvisible tests 8 bytes at a time: an invisible character at
	// every offset of a longer line.
	for pad := 0; pad < 20; pad++ {
		for _, c := range []string{"\u200b", "\u00ad", "é"} {
			s := strings.Repeat("x", pad) + c + strings.Repeat("y", 19-pad)
			if got, want := MayHit(s), c != "é"; got != want {
				t.Errorf("MayHit(%q) = %v, want %v", s, got, want)
			}
		}
	}
	for _, s := range []string{"return nil", " return nil", "x:=1; return nil", "  return undefined;"} {
		if got := MayHit(s); got != mayHitRef(s) {
			t.Errorf("MayHit(%q) = %v, mayHitRef %v", s, got, mayHitRef(s))
		}
	}
}

// TestHasInvisibleLeadBytes: hasInvisible decodes only at the first bytes
// of invisibleAt's runes; every rune it takes starts with one of them.
func TestHasInvisibleLeadBytes(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		s := "xyz" + string(r) + "abc"
		if _, got := invisibleAt(s, 3); got != 0 {
			n++
			if !hasInvisible(s) {
				t.Errorf("hasInvisible misses U+%04X", r)
			}
		} else if hasInvisible(s) {
			t.Errorf("hasInvisible takes U+%04X, which invisibleAt does not", r)
		}
	}
	if n < 20 {
		t.Errorf("only %d invisible runes", n)
	}
}

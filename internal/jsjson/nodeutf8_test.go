package jsjson

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestNodeUTF8(t *testing.T) {
	const r = "\uFFFD"
	cases := []struct{ in, want string }{
		{"", ""},
		{"plain ascii\n", "plain ascii\n"},
		{"\uFEFFbom kept", "\uFEFFbom kept"},
		{"caf\xc3\xa9", "café"},
		{"\xff", r},
		{"a\x80b", "a" + r + "b"},
		// A truncated 3-byte sequence is one maximal subpart: one U+FFFD.
		{"\xe2\x82A", r + "A"},
		{"\xe2\x82", r},
		// A lead byte that cannot start a sequence, then a continuation:
		// two replacement characters.
		{"\xc0\xaf", r + r},
		{"\xe0\x80\xaf", r + r + r}, // overlong: E0 needs A0..BF next
		{"\xed\xa0\x80", r + r + r}, // a surrogate
		{"\xf4\x90\x80\x80", r + r + r + r},
		{"\xf0\x9f\x98", r},                // truncated 4-byte
		{"\xf0\x9f\x98\x80", "\U0001F600"}, // complete 4-byte
		{"\xf0\x9f\x98\xf0\x9f\x98\x80", r + "\U0001F600"},
	}
	for _, c := range cases {
		if got := string(NodeUTF8([]byte(c.in))); got != c.want {
			t.Errorf("NodeUTF8(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzNodeUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "\xe2\x82A", "\xf0\x9f\x98", "\xed\xa0\x80", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := NodeUTF8(b)
		if !utf8.Valid(out) {
			t.Fatalf("NodeUTF8(%q) = %q is not valid UTF-8", b, out)
		}
		if utf8.Valid(b) && !bytes.Equal(out, b) {
			t.Fatalf("valid input changed: %q -> %q", b, out)
		}
		if again := NodeUTF8(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", b, out, again)
		}
		// Each input byte yields at most one replacement character, and
		// the valid runes survive in order.
		if n := utf8.RuneCount(out); n > len(b) {
			t.Fatalf("%d runes from %d bytes", n, len(b))
		}
	})
}

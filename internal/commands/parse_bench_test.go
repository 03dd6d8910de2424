package commands

import (
	"strings"
	"testing"
)

// BenchmarkParse: an ordinary comment, and a 65,536-byte one of "[a]("
// (goldmark's slowest input found) without and with a /swarm line: only
// a comment with a line that could be a command is rendered.
func BenchmarkParse(b *testing.B) {
	slow := strings.Repeat("[a](", 65536/4)
	for _, c := range []struct{ name, body string }{
		{"ordinary", "Looks good to me.\n\n/swarm recheck\n"},
		{"slow-markdown-no-command", slow},
		{"slow-markdown-with-command", "/swarm recheck\n\n" + slow},
		{"slow-markdown-at-the-limit", "/swarm recheck\n\n" + slow[:MaxCommandComment-20]},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = Parse(c.body)
			}
		})
	}
}

// TestParseLongComment: a command line in a comment over
// MaxCommandComment bytes is refused with a reply that says why; a long
// comment without one is no command and no error.
func TestParseLongComment(t *testing.T) {
	pad := strings.Repeat("[a](", MaxCommandComment/4)
	if c, err := Parse("/swarm recheck\n\n" + pad); c != nil || err == nil || !strings.Contains(err.Error(), "a comment of at most 8192 bytes") {
		t.Errorf("a long comment with a command: %+v, %v", c, err)
	}
	if c, err := Parse(pad + pad); c != nil || err != nil {
		t.Errorf("a long comment without one: %+v, %v", c, err)
	}
	if c, err := Parse("/swarm recheck\n\n" + strings.Repeat("x", MaxCommandComment-100)); c == nil || err != nil {
		t.Errorf("a comment under the limit: %+v, %v", c, err)
	}
}

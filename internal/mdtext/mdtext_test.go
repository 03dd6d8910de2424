package mdtext

import (
	"fmt"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	cases := map[string]string{
		"plain/path.go":              "plain/path.go",
		"café — ünïcode 😀":           "café — ünïcode 😀",
		"a\nb\rc\td":                 `a\nb\rc\td`,
		"\x1b[2Jx":                   `\x1b[2Jx`,
		"bad\xff\xfename":            `bad\xff\xfename`,
		"evil\u202egnp.exe":          `evil\u202egnp.exe`,
		"x\u2028y\u0085z":            `x\u2028y\u0085z`,
		"keep \ufffd replacement":    "keep \ufffd replacement",
		"\u2066isolate\u2069 \u200f": `\u2066isolate\u2069 \u200f`,
		// Invisible characters: "src/api\u200b/x.go" must not read as "src/api/x.go".
		"src/api\u200b/x.go":            `src/api\u200b/x.go`,
		"a\u200cb\u200dc\u2060d\ufeffe": `a\u200cb\u200dc\u2060d\ufeffe`,
		"1\u00ad.2\u180e\u3164":         `1\u00ad.2\u180e\u3164`,
		"tag\U000e0041":                 `tag\U000e0041`,
	}
	for in, want := range cases {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineStopsWorkflowCommands(t *testing.T) {
	if got := Line("::error title=x::all passed"); got != `\x3a:error title=x::all passed` {
		t.Errorf("got %q", got)
	}
	if got := Line("  ::warning::x"); got != `  \x3a:warning::x` {
		t.Errorf("got %q", got)
	}
	if got := Line("a::b"); got != "a::b" {
		t.Errorf("got %q", got)
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"a.go": "`a.go`", "a`b.go": "`` a`b.go ``", "x``y": "``` x``y ```", "a\nb": "`a\\nb`"} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CodeBlock("x\n```\ny"); got != "````\nx\n```\ny\n````" {
		t.Errorf("CodeBlock = %q", got)
	}
}

func TestInline(t *testing.T) {
	in := "src\n\n</details>\n\n## swarm-gate: passed | [click](http://x) *b* `c`"
	want := `src\\n\\n\</details\>\\n\\n\#\# swarm-gate: passed \| \[click\](http://x) \*b\* \` + "`" + `c\` + "`"
	if got := Inline(in); got != want {
		t.Errorf("Inline = %q\nwant     %q", got, want)
	}
	if got, want := Inline("ping @octocat and @org/team, mail a@b.c"), "ping @\u200boctocat and @\u200borg/team, mail a@b.c"; got != want {
		t.Errorf("Inline = %q, want %q (mentions must not notify)", got, want)
	}
	// GitHub links a mention after any non-word character, and a
	// non-ASCII letter or an invisible character is one.
	for _, in := range []string{"caf\u00e9@octocat", "\u00a0@octocat", "\u4f60@org/team"} {
		if got := Inline(in); !strings.Contains(got, "@\u200b") {
			t.Errorf("Inline(%q) = %q: the mention would notify", in, got)
		}
	}
	// GitHub renders $...$ as math: "$\Huge\text{all gates passed}$" in a
	// plan would print as a banner in the summary.
	if got, want := Inline(`$\Huge\text{passed}$`), `\$\\Huge\\text{passed}\$`; got != want {
		t.Errorf("Inline = %q, want %q (math would render)", got, want)
	}
	if got, want := Inline("a &amp; b"), `a \&amp; b`; got != want {
		t.Errorf("Inline = %q, want %q (an entity would render as &)", got, want)
	}
}

func TestTruncateSummary(t *testing.T) {
	items := func(prefix string, n int) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf("%s%d", prefix, i))
		}
		return strings.Join(l, "\n")
	}
	cases := []struct {
		name, in, want string
	}{
		{"cut at a line", items("line", 30), "line0\nline1\n\n… 28 more items dropped; the full report is in R"},
		{"blank lines are not items", "l1\n\n\n" + items("l", 30), "l1\n\n\n\n… 30 more items dropped; the full report is in R"},
		{"one item", "l1\n" + strings.Repeat("x", 100), "l1\n\n… 1 more item dropped; the full report is in R"},
		{"open fence closed", "intro\n````\n" + items("code", 20) + "\n````", "intro\n````\ncode0\n````\n\n… 20 more items dropped; the full report is in R"},
		{"closed fence left alone", "```\nx\n```\n" + items("after", 20), "```\nx\n```\n\n… 20 more items dropped; the full report is in R"},
		{"open details closed", "intro\n<details><summary>all</summary>\n\n" + items("- f", 20) + "\n\n</details>", "intro\n<details><summary>all</summary>\n\n- f0\n\n</details>\n\n… 19 more items dropped; the full report is in R"},
		{"details inside code are not blocks", "```\n<details>\n```\n" + items("after", 20), "```\n<details>\n```\n\n… 20 more items dropped; the full report is in R"},
		{"first line too long", strings.Repeat("é", 100), strings.Repeat("é", 3) + "…\n\n… 1 more item dropped; the full report is in R"},
	}
	for _, tc := range cases {
		limit := len(tc.want)
		if len(tc.in) <= limit {
			t.Fatalf("%s: the input fits", tc.name)
		}
		got := Truncate(tc.in, limit, "R")
		if got != tc.want {
			t.Errorf("%s:\ngot  %q (%d bytes)\nwant %q", tc.name, got, len(got), tc.want)
		}
		if got := Truncate(tc.in, limit+1, "R"); len(got) > limit+1 {
			t.Errorf("%s: %d bytes over a limit of %d", tc.name, len(got), limit+1)
		}
	}
	if got := Truncate("short", 10, "R"); got != "short" {
		t.Errorf("a summary that fits was changed: %q", got)
	}
}

package commands

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	reason500 := strings.Repeat("é", 500)
	reason501 := strings.Repeat("x", 501)
	tests := []struct {
		name       string
		body       string
		wantName   string
		wantReason string
		wantLine   int
		wantErr    string // substring; "" means no error
		wantSugg   string
	}{
		{"no command", "looks good to me", "", "", 0, "", ""},
		{"approve with reason", "/swarm approve-plan-critic critic verdict lost in a crash", ApprovePlanCritic, "critic verdict lost in a crash", 1, "", ""},
		{"acknowledge spec drift", "/swarm acknowledge-spec-drift spec.md typo fix", AcknowledgeSpecDrift, "spec.md typo fix", 1, "", ""},
		{"recheck", "/swarm recheck", Recheck, "", 1, "", ""},
		{"help", "/swarm help\n", Help, "", 1, "", ""},
		{"after prose", "Thanks!\n\n/swarm recheck\n\nbye", Recheck, "", 3, "", ""},
		{"CRLF", "hello\r\n/swarm approve-plan-critic  lost record \r\nthanks\r\n", ApprovePlanCritic, "lost record", 2, "", ""},
		{"lone CR", "hello\r/swarm recheck", Recheck, "", 2, "", ""},
		{"leading spaces up to three", "   /swarm recheck", Recheck, "", 1, "", ""},
		{"four leading spaces: indented code", "text\n\n    /swarm recheck", "", "", 0, "", ""},
		{"tab: indented code", "\t/swarm recheck", "", "", 0, "", ""},
		{"tab between command and reason", "/swarm approve-plan-critic\tbecause", ApprovePlanCritic, "because", 1, "", ""},
		{"in a backtick fence", "```\n/swarm approve-plan-critic x\n```", "", "", 0, "", ""},
		{"in a tilde fence", "~~~md\n/swarm recheck\n~~~", "", "", 0, "", ""},
		{"after a fence closes", "```\ncode\n```\n/swarm recheck", Recheck, "", 4, "", ""},
		{"longer closing fence needed", "````\n```\n/swarm recheck\n````", "", "", 0, "", ""},
		{"unclosed fence hides the rest", "```\n/swarm recheck", "", "", 0, "", ""},
		{"in a block quote", "> /swarm approve-plan-critic x", "", "", 0, "", ""},
		{"quote lazy continuation", "> quoting you\n/swarm recheck", "", "", 0, "", ""},
		{"after a quote and a blank line", "> quoting you\n\n/swarm recheck", Recheck, "", 3, "", ""},
		{"in an HTML comment", "<!-- /swarm approve-plan-critic x -->", "", "", 0, "", ""},
		{"in a multi-line HTML comment", "<!--\n/swarm approve-plan-critic x\n-->", "", "", 0, "", ""},
		{"after an HTML comment", "<!--\nhidden\n-->\n/swarm recheck", Recheck, "", 4, "", ""},
		{"not at line start", "please /swarm recheck", "", "", 0, "", ""},
		{"inline code", "`/swarm recheck`", "", "", 0, "", ""},
		{"list item", "- /swarm recheck", "", "", 0, "", ""},
		{"swarmx is not swarm", "/swarming is fun", "", "", 0, "", ""},
		{"no space after /swarm", "/swarmapprove-plan-critic lost verdict", "", "", 0, "`/swarm` and the command need a space between them (`/swarm approve-plan-critic`)", ""},
		{"upper case", "/SWARM RECHECK", Recheck, "", 1, "", ""},
		{"unicode reason", "/swarm approve-plan-critic Kritik bestätigt ✅ 批准", ApprovePlanCritic, "Kritik bestätigt ✅ 批准", 1, "", ""},
		{"500-character reason", "/swarm approve-plan-critic " + reason500, ApprovePlanCritic, reason500, 1, "", ""},
		{"501-character reason", "/swarm approve-plan-critic " + reason501, "", "", 0, "the reason is 501 characters", ""},
		{"250 emoji: 500 characters as the plugin counts them", "/swarm approve-plan-critic " + strings.Repeat("😀", 250), ApprovePlanCritic, strings.Repeat("😀", 250), 1, "", ""},
		{"251 emoji: 502 characters as the plugin counts them", "/swarm approve-plan-critic " + strings.Repeat("😀", 251), "", "", 0, "the reason is 502 characters as the agent's plugin counts them (251 of its 251 characters, such as emoji, count twice)", ""},
		{"reason trimmed of JavaScript white space", "/swarm approve-plan-critic \ufeff lost\u00a0\u3000", ApprovePlanCritic, "lost", 1, "", ""},
		{"reason keeps inner spacing", "/swarm approve-plan-critic a  b\tc", ApprovePlanCritic, "a  b\tc", 1, "", ""},
		{"HTML comment before the command on its line", "<!-- hi --> /swarm recheck", "", "", 0, "", ""},
		{"HTML comment opened on the command's line", "/swarm recheck <!--\n/swarm help\n-->", Recheck, "", 1, "", ""},
		{"HTML comment opened on the command's line, literal", "/swarm recheck <!--\n\n/swarm help", "", "", 0, "2 `/swarm` commands (lines 1, 3)", ""},
		{"indented block quote", "   > /swarm recheck", "", "", 0, "", ""},
		{"nested block quote", "> > /swarm recheck", "", "", 0, "", ""},
		{"CRLF fence", "```\r\n/swarm recheck\r\n```\r\n/swarm help\r\n", Help, "", 4, "", ""},
		{"three spaces and a tab", "   \t/swarm recheck", "", "", 0, "", ""},
		{"unicode command name", "/swarm réchéck", "", "", 0, "did you mean `/swarm recheck`?", Recheck},
		{"reason only spaces", "/swarm approve-plan-critic    ", "", "", 0, "needs a reason", ""},
		{"no reason", "/swarm acknowledge-spec-drift", "", "", 0, "needs a reason", ""},
		{"recheck with arguments", "/swarm recheck now", "", "", 0, "takes no arguments", ""},
		{"bare /swarm", "/swarm", "", "", 0, "needs a command", Help},
		{"typo", "/swarm aprove-plan-critic x", "", "", 0, "did you mean `/swarm approve-plan-critic`?", ApprovePlanCritic},
		{"typo recheck", "/swarm rechek", "", "", 0, "did you mean `/swarm recheck`?", Recheck},
		{"prefix", "/swarm ack", "", "", 0, "did you mean `/swarm acknowledge-spec-drift`?", AcknowledgeSpecDrift},
		{"far off", "/swarm deploy-production", "", "", 0, "unknown command `/swarm deploy-production`; the commands are", ""},
		{"two commands", "/swarm recheck\n/swarm help", "", "", 0, "2 `/swarm` commands (lines 1, 2)", ""},
		{"two commands one in a fence", "/swarm recheck\n```\n/swarm help\n```", Recheck, "", 1, "", ""},
		// Issue 9 review: Unicode spaces and invisible characters.
		{"no-break space before the reason", "/swarm approve-plan-critic\u00a0lost verdict", ApprovePlanCritic, "lost verdict", 1, "", ""},
		{"ideographic space before the reason", "/swarm approve-plan-critic\u3000批准", ApprovePlanCritic, "批准", 1, "", ""},
		{"en quad to hair space before the reason", "/swarm approve-plan-critic\u2000a\u200ab", ApprovePlanCritic, "a\u200ab", 1, "", ""},
		{"no-break space after /swarm", "/swarm\u00a0recheck", Recheck, "", 1, "", ""},
		{"zero width space glues the reason", "/swarm approve-plan-critic\u200blost", "", "", 0, "an invisible character (U+200B ZERO WIDTH SPACE) follows `/swarm approve-plan-critic` instead of a space", ApprovePlanCritic},
		{"zero width space before /swarm", "\u200b/swarm recheck", "", "", 0, "it starts with an invisible character (U+200B ZERO WIDTH SPACE) before `/swarm`", ""},
		{"no-break space before /swarm", "\u00a0/swarm approve-plan-critic x", "", "", 0, "invisible character (U+00A0 NO-BREAK SPACE) before `/swarm`", ""},
		{"byte order mark before /swarm", "\ufeff/swarm recheck", "", "", 0, "(U+FEFF ZERO WIDTH NO-BREAK SPACE, a byte order mark) before `/swarm`", ""},
		{"zero width space after /swarm", "/swarm\u200brecheck", "", "", 0, "an invisible character (U+200B ZERO WIDTH SPACE) stands between `/swarm` and the command", ""},
		{"near miss next to a command runs the command", "\u200b/swarm help\n/swarm recheck", Recheck, "", 2, "", ""},
		{"reason of invisible characters only", "/swarm approve-plan-critic \u200b\u200d\u2060", "", "", 0, "the reason holds only invisible characters (U+200B ZERO WIDTH SPACE)", ""},
		{"reason with a hidden comment", "/swarm approve-plan-critic ok <!-- and also approve the rest --> by hand", ApprovePlanCritic, "ok  by hand", 1, "", ""},
		{"reason hiding the rest of the line", "/swarm approve-plan-critic ok <!-- hidden\n-->", ApprovePlanCritic, "ok", 1, "", ""},
		{"reason made of a comment only", "/swarm acknowledge-spec-drift <!-- why -->", "", "", 0, "needs a reason", ""},
		{"unclosed comment in a reason is text", "/swarm approve-plan-critic fixes <!-- parsing", ApprovePlanCritic, "fixes <!-- parsing", 1, "", ""},
		{"comment opener in a code span in the reason", "/swarm approve-plan-critic fixes `<!--` parsing\n\n/swarm help", "", "", 0, "2 `/swarm` commands", ""},
		{"comment opener in inline code", "see `<!--` here\n/swarm recheck", Recheck, "", 2, "", ""},
		{"comment opener in an indented code block", "text\n\n    <!--\n\n/swarm recheck", Recheck, "", 5, "", ""},
		// The quote ends, but its raw "<!--" runs on in the page to its end.
		{"comment opener in a block quote", "> <!--\n\n/swarm recheck", "", "", 0, "", ""},
		{"comment opener in a fence", "```\n<!--\n```\n/swarm recheck", Recheck, "", 4, "", ""},
		{"inline comment across lines hides", "see <!-- a\n/swarm recheck\n--> b", "", "", 0, "", ""},
		{"inline comment opener closed only after a blank line is text", "see <!-- a\n\n/swarm recheck\n-->", Recheck, "", 3, "", ""},
		{"HTML block hides across blank lines", "<!--\n\n/swarm recheck\n\n-->", "", "", 0, "", ""},
		{"indented paragraph continuation opens a comment", "text\n    <!--\n/swarm recheck\n-->", "", "", 0, "", ""},
		{"mention in an unknown command", "/swarm @octocat", "", "", 0, "unknown command `/swarm @octocat`", ""},
		{"arguments quoted as code", "/swarm recheck @octocat", "", "", 0, "takes no arguments; found `@octocat`", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.body)
			if tt.wantErr != "" {
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("got %+v, %v; want a ParseError with %q", c, err, tt.wantErr)
				}
				if !strings.Contains(pe.Msg, tt.wantErr) {
					t.Errorf("error %q, want it to contain %q", pe.Msg, tt.wantErr)
				}
				if pe.Suggestion != tt.wantSugg {
					t.Errorf("suggestion %q, want %q", pe.Suggestion, tt.wantSugg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantName == "" {
				if c != nil {
					t.Fatalf("got %+v, want no command", c)
				}
				return
			}
			if c == nil {
				t.Fatal("no command found")
			}
			if c.Name != tt.wantName || c.Reason != tt.wantReason || c.Line != tt.wantLine {
				t.Errorf("got %q %q line %d, want %q %q line %d", c.Name, c.Reason, c.Line, tt.wantName, tt.wantReason, tt.wantLine)
			}
		})
	}
}

// TestParseNamedSHA: an override may name the head commit it approves
// before its reason (issue 20 item 1).
func TestParseNamedSHA(t *testing.T) {
	for _, c := range []struct{ body, sha, reason, err string }{
		{"/swarm approve-plan-critic 1a2b3c4 checked the plan", "1a2b3c4", "checked the plan", ""},
		{"/swarm approve-plan-critic 1A2B3C4D5E6F7A8B9C0D1E2F3A4B5C6D7E8F9A0B ok", "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "ok", ""},
		{"/swarm acknowledge-spec-drift 0123456 typo only", "0123456", "typo only", ""},
		{"/swarm approve-plan-critic 1a2b3c typo", "", "1a2b3c typo", ""},                                                                 // 6 digits: too short
		{"/swarm approve-plan-critic defaced branch restored", "", "defaced branch restored", ""},                                         // no digit: a word
		{"/swarm approve-plan-critic 1a2b3c4g fine", "", "1a2b3c4g fine", ""},                                                             // not hex
		{"/swarm approve-plan-critic 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1 x", "", "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1 x", ""}, // 41
		{"/swarm approve-plan-critic 1a2b3c4", "", "", "names a commit but gives no reason"},
		{"/swarm approve-plan-critic 1a2b3c4\u00a0nbsp reason", "1a2b3c4", "nbsp reason", ""},
		{"/swarm approve-plan-critic 1a2b3c4 \u200b", "", "", "only invisible characters"},
	} {
		cmd, err := Parse(c.body)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.body, err, c.err)
			}
			continue
		}
		if err != nil || cmd == nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		if cmd.SHA != c.sha || cmd.Reason != c.reason {
			t.Errorf("%q: sha %q reason %q, want %q %q", c.body, cmd.SHA, cmd.Reason, c.sha, c.reason)
		}
	}
}

// TestParseHiddenCommands is issue 20 item 4: a `/swarm` line that GitHub
// does not render as visible text at a line start is no command.
func TestParseHiddenCommands(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"link reference definition's title", "[x]: https://example.com \"a title\n/swarm approve-plan-critic hidden\n\"\n\nlooks fine"},
		{"inline link's title", "see [the plan](https://example.com \"\n/swarm approve-plan-critic hidden\n\")"},
		{"image alt text", "![\n/swarm approve-plan-critic hidden\n](https://example.com/a.png)"},
		{"HTML attribute", "<img src=\"a.png\" alt=\"x\n/swarm approve-plan-critic hidden\n\">"},
		{"span title", "text <span title=\"\n/swarm approve-plan-critic hidden\n\">t</span>"},
		{"link text", "[\n/swarm approve-plan-critic hidden\n](https://example.com)"},
		// GitHub typesets these as math, not as text.
		{"display math", "$$\n/swarm approve-plan-critic hidden\n$$"},
		{"inline math across lines", "see $x\n/swarm approve-plan-critic hidden$"},
		// GitHub strikes these through: a command struck out is withdrawn.
		{"strikethrough text", "~~I will not\n/swarm approve-plan-critic hidden~~"},
		{"single-tilde strikethrough", "~not\n/swarm approve-plan-critic hidden~"},
		{"HTML block", "<details>\n<summary>x</summary>\n/swarm approve-plan-critic hidden\n</details>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, err := Parse(c.body)
			if cmd != nil || err != nil {
				t.Errorf("Parse(%q) = %+v, %v; want no command", c.body, cmd, err)
			}
		})
	}
	// Visible lines still count, also after hidden ones.
	for _, body := range []string{
		"[x]: https://example.com\n\n/swarm recheck",
		"<details>\n<summary>log</summary>\n\nsome log\n\n</details>\n\n/swarm recheck",
		"<!-- <details> -->\n\n/swarm recheck",
		"</details>\n\n/swarm recheck",
		"![img](a.png)\n/swarm recheck",
		"Some *emphasis* first\n/swarm recheck",
		"<xmp>\n\n/swarm recheck", // GitHub escapes <xmp>: no raw text element
		"it costs $5\n\n/swarm recheck",
		"a \\$ sign\n/swarm recheck",
		"<span title=\"</details>\">x</span>\n\n/swarm recheck",
		"<details>\n\n<details/>\n\n</details>\n\n</details>\n\n/swarm recheck",
	} {
		if cmd, err := Parse(body); err != nil || cmd == nil || cmd.Name != Recheck {
			t.Errorf("Parse(%q) = %+v, %v; want recheck", body, cmd, err)
		}
	}
}

// Issue 20: a command inside a <details> element is no command, though
// its lines are paragraphs of their own once blank lines separate them from
// the tags: GitHub shows them only after a click (collapsed, or open, the
// same rule for both), so the maintainer who approved the comment may not
// have seen them. Nested elements, any tag case and attributes, and an
// element never closed (the rest of the comment is inside) count.
func TestParseCommandInDetails(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"collapsed", "LGTM\n\n<details>\n<summary>more</summary>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"open", "<details open>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"upper case", "<DETAILS>\n\n/swarm approve-plan-critic hidden\n\n</DETAILS>"},
		{"nested, after the inner one closes", "<details>\n\n<details>\n\nx\n\n</details>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"never closed", "<details>\n\n/swarm approve-plan-critic hidden"},
		{"in a list item", "- <details>\n\n  /swarm approve-plan-critic hidden\n\n  </details>"},
		{"its summary too (one rule for the whole element)", "<details><summary>\n\n/swarm approve-plan-critic hidden\n\n</summary>ok</details>"},
		// A </details> or <!-- a browser does not read as one closes or hides nothing.
		{"</details> in an attribute", "<details>\n\n<span title=\"</details>\"></span>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"</details> in a single-quoted attribute", "<details>\n\n<a href='</details>'>x</a>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"<details> after <!-- in an attribute", "<div title=\"<!--\">\n<details>\n\n/swarm approve-plan-critic hidden\n\n</details>"},
		{"</details> in a CDATA bogus comment", "<details>\n\n<![CDATA[</details>]]>\n\n/swarm approve-plan-critic hidden"},
		{"</details> in a processing instruction", "<details>\n\n<?x </details> ?>\n\n/swarm approve-plan-critic hidden"},
		{"</details> in a declaration", "<details>\n\n<!X </details> >\n\n/swarm approve-plan-critic hidden"},
		{"an attribute value running across blocks", "<details>\n<span title=\"x\n\n</details>\n\n/swarm approve-plan-critic hidden\n\n<b title=\"\">"},
		// An end tag the browser's tree builder ignores closes nothing.
		{"</details> in a table cell", "<details>\n<table><tr><td>\n</details>\n</td></tr></table>\n\n/swarm approve-plan-critic hidden"},
		{"</details> in an object", "<details>\n<object>\n</details>\n</object>\n\n/swarm approve-plan-critic hidden"},
		{"in a template", "<template>\n\n/swarm approve-plan-critic hidden\n\n</template>"},
		{"in a noscript", "<noscript>\n\n/swarm approve-plan-critic hidden\n\n</noscript>"},
		{"a video's fallback content", "<video src=\"a.mp4\">\n\n/swarm approve-plan-critic hidden\n\n</video>"},
		{"inside an attribute value opened in an earlier block", "<div>\n<span title=\"x\n\n/swarm approve-plan-critic hidden\n\n<b title=\"\">"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, err := Parse(c.body)
			if cmd != nil || err != nil {
				t.Errorf("Parse(%q) = %+v, %v; want no command", c.body, cmd, err)
			}
		})
	}
}

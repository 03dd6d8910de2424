package commands

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzWebhooksDir holds GitHub's example webhook payloads; their comment
// bodies seed the fuzz targets when ../shared is present.
const fuzzWebhooksDir = "../../../shared/github/webhooks"

// fuzzBot is the bot login the override fuzz target records as.
const fuzzBot = "swarm-gate[bot]"

// addCommentBodies adds the comment.body of each example issue_comment
// payload (read in place; nothing when ../shared is absent).
func addCommentBodies(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fuzzWebhooksDir, "issue_comment", "*.json"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatalf("reading seed %s: %v", p, err)
		}
		var ev struct {
			Comment struct {
				Body string `json:"body"`
			} `json:"comment"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			f.Fatalf("seed %s: %v", p, err)
		}
		f.Add(ev.Comment.Body)
	}
}

// FuzzParseCommand: Parse never panics; it returns a command, an error or
// neither, never both; a command is a known one, on a line of the body
// that starts with /swarm, with a reason only for an override (1 to
// MaxReason characters of UTF-8, trimmed); an error is a *ParseError with
// a message and a known suggestion. Quoting every line (a block quote)
// hides any command.
func FuzzParseCommand(f *testing.F) {
	addCommentBodies(f)
	for _, s := range []string{
		"", "/swarm", "/swarm help", "/SWARM RECHECK\n", "/swarm recheck now",
		"/swarm approve-plan-critic critic verdict lost in a crash",
		"hello\r\n/swarm acknowledge-spec-drift  spec typo \r\nthanks\r\n",
		"```\n/swarm recheck\n```\n   /swarm help", "````\n```\n/swarm recheck\n````",
		"> quote\nlazy /swarm\n\n/swarm rechek", "<!-- a\n/swarm recheck\n--> /swarm help",
		"/swarm recheck\n/swarm help", "/swarm aprove-plan-critic x", "/swarm ack",
		"/swarm approve-plan-critic " + strings.Repeat("é", 501), "/swarm approve-plan-critic \xff\xfe",
		"\t/swarm recheck", "    /swarm recheck", "~~~\n/swarm recheck\n~~~~ \n/swarm help",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, err := Parse(body)
		if c != nil && err != nil {
			t.Fatalf("command %+v and error %v", c, err)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Msg == "" {
				t.Fatalf("error %v (%T) is not a *ParseError with a message", err, err)
			}
			if pe.Suggestion != "" && !slices.Contains(Names, pe.Suggestion) {
				t.Fatalf("suggestion %q is not a command", pe.Suggestion)
			}
		}
		if c != nil {
			checkCommand(t, body, c)
		}
		// The same body as a block quote holds no command.
		norm := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
		quoted := "> " + strings.ReplaceAll(norm, "\n", "\n> ")
		if qc, qerr := Parse(quoted); qc != nil || qerr != nil {
			t.Fatalf("quoted body %q: command %+v, error %v", quoted, qc, qerr)
		}
	})
}

// checkCommand checks a parsed command against the body it came from.
func checkCommand(t *testing.T, body string, c *Command) {
	t.Helper()
	if !slices.Contains(Names, c.Name) {
		t.Fatalf("unknown command %q", c.Name)
	}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"), "\n")
	if c.Line < 1 || c.Line > len(lines) {
		t.Fatalf("line %d of %d", c.Line, len(lines))
	}
	l := lines[c.Line-1]
	if strings.TrimRight(strings.TrimLeft(l, " "), " \t") != c.Text || len(l)-len(strings.TrimLeft(l, " ")) > 3 {
		t.Fatalf("text %q is not line %d %q", c.Text, c.Line, l)
	}
	if len(c.Text) < len("/swarm") || !strings.EqualFold(c.Text[:len("/swarm")], "/swarm") {
		t.Fatalf("line %q does not start with /swarm", c.Text)
	}
	if !strings.Contains(strings.ToLower(c.Text), c.Name) || (!strings.Contains(c.Text, "<!--") && !strings.Contains(c.Text, c.Reason)) {
		t.Fatalf("command %q reason %q not on the line %q", c.Name, c.Reason, c.Text)
	}
	if IsOverride(c.Name) {
		n := utf8.RuneCountInString(c.Reason)
		if n < 1 || n > MaxReason || !utf8.ValidString(c.Reason) || strings.TrimSpace(c.Reason) != c.Reason || strings.TrimFunc(c.Reason, isInvisible) == "" {
			t.Fatalf("override reason %q (%d characters)", c.Reason, n)
		}
	} else if c.Reason != "" {
		t.Fatalf("%s with a reason %q", c.Name, c.Reason)
	}
}

// FuzzOverrideRecord: a record swarm-gate writes reads back as the same
// override whatever the reason holds (no marker injection, no early end
// of the HTML comment), and Recorded finds it by its source comment. Any
// body in a bot comment gives at most one override, with the fields a
// record must have, or a note saying why it was ignored.
func FuzzOverrideRecord(f *testing.F) {
	addCommentBodies(f)
	for _, s := range []string{
		"verdict lost --> <b>é</b> 批准", "x\n<!-- swarm-gate:override {\"v\":1} -->\n", "@octo `code` | [a](b)",
		"<!-- swarm-gate:override {\"v\":1,\"command\":\"approve-plan-critic\",\"actor\":\"a\",\"reason\":\"r\",\"recorded_at\":\"2026-01-02T03:04:05Z\",\"head_sha\":\"h\",\"structure_hash\":\"s\",\"comment_id\":7,\"comment_url\":\"u\"} -->",
		"\u2028\u2029\x00\r",
	} {
		f.Add(s)
	}
	at := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		// Round trip, the text as the reason.
		if utf8.ValidString(text) {
			for i, command := range []string{ApprovePlanCritic, AcknowledgeSpecDrift} {
				rec := Record{Command: command, Actor: "octo-cat", Reason: text, RecordedAt: "2026-01-02T03:04:05Z",
					HeadSHA: strings.Repeat("a", 40), StructureHash: strings.Repeat("b", 64), CommentID: int64(40 + i),
					CommentURL: "https://github.com/o/r/pull/7#issuecomment-42"}
				body, err := RecordBody(rec)
				if err != nil {
					t.Fatal(err)
				}
				comments := []Comment{{ID: 100, Author: fuzzBot, Body: body, CreatedAt: at, UpdatedAt: at}}
				got, notes := ReadMarkers(comments, fuzzBot)
				want := rec
				want.Version = 1
				if len(got) != 1 || got[0].Record != want || len(notes) != 0 {
					t.Fatalf("reason %q: read back %+v, notes %q; want %+v\nbody:\n%s", text, got, notes, want, body)
				}
				if !Recorded(comments, fuzzBot, rec.CommentID) || Recorded(comments, fuzzBot, rec.CommentID+1) {
					t.Fatalf("Recorded does not find comment %d by its id", rec.CommentID)
				}
				if !Replied(comments, fuzzBot, rec.CommentID) || Replied(comments, fuzzBot, rec.CommentID+1) {
					t.Fatalf("Replied does not find comment %d by its id", rec.CommentID)
				}
				// The same body by anyone else records nothing.
				if got, notes := ReadMarkers([]Comment{{ID: 101, Author: "octo-cat", Body: body}}, fuzzBot); len(got) != 0 || len(notes) != 1 {
					t.Fatalf("a marker by another author: %+v, %q", got, notes)
				}
			}
		}
		// The text as a whole bot comment.
		comments := []Comment{{ID: 5, Author: fuzzBot, Body: text, CreatedAt: at, UpdatedAt: at}}
		got, notes := ReadMarkers(comments, fuzzBot)
		if len(got)+len(notes) > 1 {
			t.Fatalf("one comment gave %d markers and %d notes", len(got), len(notes))
		}
		for _, m := range got {
			o := m.Record
			if !IsOverride(o.Command) || o.Actor == "" || o.HeadSHA == "" || o.StructureHash == "" || o.CommentID == 0 {
				t.Fatalf("incomplete marker %+v", o)
			}
			if _, err := time.Parse(time.RFC3339, o.RecordedAt); err != nil {
				t.Fatalf("marker time %q: %v", o.RecordedAt, err)
			}
		}
	})
}

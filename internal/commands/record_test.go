package commands

import (
	"strings"
	"testing"
	"time"
)

const bot = "github-actions[bot]"

func sampleRecord() Record {
	return Record{Command: ApprovePlanCritic, Actor: "octo", Reason: "verdict lost --> <b>é</b> 批准",
		RecordedAt: "2026-01-02T03:04:05Z", HeadSHA: strings.Repeat("a", 40), StructureHash: strings.Repeat("b", 64),
		CommentID: 42, CommentURL: "https://github.com/o/r/pull/7#issuecomment-42"}
}

func botComment(t *testing.T, id int64, rec Record) Comment {
	t.Helper()
	body, err := RecordBody(rec)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	return Comment{ID: id, Author: bot, Body: body, CreatedAt: at, UpdatedAt: at}
}

func TestRecordRoundTrip(t *testing.T) {
	rec := sampleRecord()
	c := botComment(t, 100, rec)
	if strings.Contains(c.Body, "--> <b>") {
		t.Fatalf("the reason can end the HTML comment:\n%s", c.Body)
	}
	got, notes := ReadMarkers([]Comment{c}, bot)
	want := rec
	want.Version = 1
	if len(got) != 1 || got[0].Record != want || got[0].Comment.ID != 100 || len(notes) != 0 {
		t.Fatalf("got %+v %v, want %+v", got, notes, want)
	}
	if !strings.HasSuffix(c.Body, "\n"+ReplyMarker(42)+"\n") || !Replied([]Comment{c}, bot, 42) {
		t.Errorf("the record does not end with the reply marker:\n%s", c.Body)
	}
	if !Recorded([]Comment{c}, bot, 42) || Recorded([]Comment{c}, bot, 43) {
		t.Error("Recorded does not key on the source comment id")
	}
}

func TestReadMarkersTrust(t *testing.T) {
	rec := sampleRecord()
	good := botComment(t, 100, rec)
	forged := good
	forged.ID, forged.Author = 101, "octo"
	edited := botComment(t, 102, rec)
	edited.UpdatedAt = edited.CreatedAt.Add(time.Minute)
	twice := botComment(t, 103, rec) // the same source comment recorded again
	other := rec
	other.CommentID, other.Command = 44, AcknowledgeSpecDrift
	second := botComment(t, 104, other)
	broken := Comment{ID: 105, Author: bot, Body: markerPrefix + `{"v":1,"command":"approve-plan-critic"} -->`}
	unknownField := Comment{ID: 106, Author: bot, Body: markerPrefix + `{"v":1,"extra":true} -->`}
	recheck := rec
	recheck.CommentID, recheck.Command = 45, Recheck
	notOverride := botComment(t, 107, recheck)
	quoted := botComment(t, 108, rec)
	quoted.Body = strings.Replace(quoted.Body, markerPrefix, "> "+markerPrefix, 1) // a marker not at the start of a line
	quoted.ID = 108

	tests := []struct {
		name      string
		comments  []Comment
		wantCmds  []string
		wantNotes []string
	}{
		{"own comment", []Comment{good}, []string{ApprovePlanCritic}, nil},
		{"someone else's marker", []Comment{forged}, nil, []string{"only comments by swarm-gate (@github-actions[bot]) record overrides"}},
		{"edited marker", []Comment{edited}, nil, []string{"it was edited after swarm-gate posted it"}},
		{"recorded twice: both read (VerifyOverrides keeps one)", []Comment{good, twice}, []string{ApprovePlanCritic, ApprovePlanCritic}, nil},
		{"two overrides, oldest first", []Comment{good, second}, []string{ApprovePlanCritic, AcknowledgeSpecDrift}, nil},
		{"incomplete marker", []Comment{broken}, nil, []string{"lacks the actor"}},
		{"unknown field", []Comment{unknownField}, nil, []string{"not valid"}},
		{"not an override command", []Comment{notOverride}, nil, []string{"records no override"}},
		{"marker not at line start", []Comment{quoted}, nil, nil},
		{"bot login any case", []Comment{func() Comment { c := good; c.Author = "GitHub-Actions[bot]"; return c }()}, []string{ApprovePlanCritic}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := ReadMarkers(tt.comments, bot)
			var cmds []string
			for _, m := range got {
				cmds = append(cmds, m.Record.Command)
			}
			if strings.Join(cmds, ",") != strings.Join(tt.wantCmds, ",") {
				t.Errorf("overrides %v, want %v", cmds, tt.wantCmds)
			}
			if len(notes) != len(tt.wantNotes) {
				t.Fatalf("notes %q, want %q", notes, tt.wantNotes)
			}
			for i := range notes {
				if !strings.Contains(notes[i], tt.wantNotes[i]) {
					t.Errorf("note %q, want it to contain %q", notes[i], tt.wantNotes[i])
				}
			}
		})
	}
}

// TestRecordReply: the paragraph about the durable record sits between the
// reason and the marker, cannot open an HTML comment, and the marker still
// reads back.
func TestRecordReply(t *testing.T) {
	rec := sampleRecord()
	body, err := RecordReply(rec, "Committed to branch `x` <!-- swarm-gate:override {} -->")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "> verdict lost") || !strings.Contains(body, "Committed to branch `x` &lt;!-- swarm-gate:override") ||
		strings.Index(body, "Committed to branch") > strings.Index(body, markerPrefix) {
		t.Fatalf("body:\n%s", body)
	}
	at := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	got, notes := ReadMarkers([]Comment{{ID: 1, Author: bot, Body: body, CreatedAt: at, UpdatedAt: at}}, bot)
	if len(got) != 1 || len(notes) != 0 {
		t.Fatalf("%+v %v", got, notes)
	}
}

// TestReplied: a redelivered command is answered once: swarm-gate's reply
// marker (or its override marker) naming the command comment counts, by
// swarm-gate's identity only.
func TestReplied(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)
	reply := "> /swarm help\n\n...\n\n" + ReplyMarker(42) + "\n"
	cases := []struct {
		name     string
		comments []Comment
		want     bool
	}{
		{"no reply", nil, false},
		{"reply by swarm-gate", []Comment{{ID: 1, Author: bot, Body: reply, CreatedAt: at, UpdatedAt: at}}, true},
		{"reply to another comment", []Comment{{ID: 1, Author: bot, Body: strings.Replace(reply, "42", "43", 1), CreatedAt: at, UpdatedAt: at}}, false},
		{"reply marker by someone else", []Comment{{ID: 1, Author: "octo", Body: reply, CreatedAt: at, UpdatedAt: at}}, false},
		{"reply marker quoted", []Comment{{ID: 1, Author: bot, Body: "> " + ReplyMarker(42), CreatedAt: at, UpdatedAt: at}}, false},
		{"override marker", []Comment{botComment(t, 1, sampleRecord())}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Replied(tc.comments, bot, 42); got != tc.want {
				t.Errorf("Replied = %v, want %v", got, tc.want)
			}
		})
	}
}

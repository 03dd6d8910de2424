package commands

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/mdtext"
	"github.com/swarm-gate/swarm-gate/internal/planhash"
)

// Comment is a pull request comment as the API lists it.
type Comment struct {
	ID        int64
	Author    string // login
	Body      string
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Record is one human override, as swarm-gate records it in a marker
// comment. The JSON names are the marker's format (version 1).
type Record struct {
	Version       int    `json:"v"`
	Command       string `json:"command"`
	Actor         string `json:"actor"`
	Reason        string `json:"reason"`
	RecordedAt    string `json:"recorded_at"` // the command comment's created_at, RFC 3339
	HeadSHA       string `json:"head_sha"`
	StructureHash string `json:"structure_hash"`
	// SpecStaleness is, for acknowledge-spec-drift, the
	// gates.SpecStalenessKey of .swarm/spec-staleness.json at HeadSHA: the
	// drift acknowledged.
	SpecStaleness string `json:"spec_staleness,omitempty"`
	CommentID     int64  `json:"comment_id"`
	CommentURL    string `json:"comment_url"`
}

// markerPrefix opens a marker; the JSON and " -->" follow.
const markerPrefix = "<!-- swarm-gate:override "

// marker finds a marker at the start of a line. encoding/json escapes <
// and >, so a reason cannot end the HTML comment early.
var marker = regexp.MustCompile(`(?m)^<!-- swarm-gate:override (\{.*\}) -->$`)

// replyMarker names, in every reply swarm-gate posts to a command, the
// command comment it answers, so that a redelivered command is not
// answered (or run) twice.
var replyMarker = regexp.MustCompile(`(?m)^<!-- swarm-gate:reply \{"comment":([0-9]{1,19})\} -->$`)

// ReplyMarker is the hidden line that ends a reply to command comment id.
func ReplyMarker(id int64) string {
	return fmt.Sprintf(`<!-- swarm-gate:reply {"comment":%d} -->`, id)
}

// Replied reports whether botLogin (swarm-gate's identity) already
// answered command comment id: a reply marker or an override marker that
// names it.
func Replied(comments []Comment, botLogin string, id int64) bool {
	want := strconv.FormatInt(id, 10)
	for _, c := range comments {
		if !strings.EqualFold(c.Author, botLogin) {
			continue
		}
		for _, m := range replyMarker.FindAllStringSubmatch(c.Body, -1) {
			if m[1] == want {
				return true
			}
		}
	}
	return Recorded(comments, botLogin, id)
}

// RecordBody is the marker comment for rec: a line people read and the
// machine-readable marker.
func RecordBody(rec Record) (string, error) { return RecordReply(rec, "") }

// RecordReply is RecordBody with a paragraph (durable, "" for none) saying
// where else the override is recorded, e.g. the commit of the plugin's own
// ledger record, or why it is not.
func RecordReply(rec Record, durable string) (string, error) {
	rec.Version = 1
	data, err := json.Marshal(rec)
	if err != nil {
		return "", fmt.Errorf("encoding the override record: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**swarm-gate recorded a human override**: `/swarm %s` by @%s ([comment](%s)), bound to head %s and plan structure hash %s.\n\n",
		rec.Command, rec.Actor, rec.CommentURL, shortSHA(rec.HeadSHA), planhash.Short(rec.StructureHash))
	fmt.Fprintf(&b, "> %s\n\n", mdtext.Inline(rec.Reason))
	if durable = strings.TrimSpace(durable); durable != "" {
		b.WriteString(strings.ReplaceAll(durable, "<!--", "&lt;!--") + "\n\n")
	}
	if rec.Command == AcknowledgeSpecDrift {
		b.WriteString("It acknowledges the spec drift `.swarm/spec-staleness.json` records now; a push that changes the plan's structure, or different drift, voids it. Only swarm-gate reads this record back, and only while the command comment is unedited and its author may still run the command.\n\n")
	} else {
		b.WriteString("A push that changes the plan's structure voids it; status-only changes keep it. Only swarm-gate reads this record back, and only while the command comment is unedited and its author may still run the command.\n\n")
	}
	b.WriteString(markerPrefix + string(data) + " -->\n")
	b.WriteString(ReplyMarker(rec.CommentID) + "\n")
	return b.String(), nil
}

// Marker is an override record read from a comment by swarm-gate's
// identity, not yet verified (see VerifyOverrides).
type Marker struct {
	Comment Comment // the comment that holds it
	Record  Record
}

// ReadMarkers reads the override markers in the pull request's comments,
// oldest first. Only comments authored by botLogin (swarm-gate's own
// identity) count; a marker comment edited after it was posted is
// ignored, as is an unreadable or incomplete marker; notes say why for
// each one ignored. The markers still need VerifyOverrides: an author and
// an unedited comment prove little (a workflow token posts as the same
// bot; an edit within a second leaves updated_at unchanged).
func ReadMarkers(comments []Comment, botLogin string) ([]Marker, []string) {
	var out []Marker
	var notes []string
	for _, c := range comments {
		ms := marker.FindAllStringSubmatch(c.Body, -1)
		if len(ms) == 0 {
			continue
		}
		if !strings.EqualFold(c.Author, botLogin) {
			notes = append(notes, fmt.Sprintf("ignored an override marker in comment %d by @%s: only comments by swarm-gate (@%s) record overrides", c.ID, c.Author, botLogin))
			continue
		}
		if !c.UpdatedAt.IsZero() && !c.UpdatedAt.Equal(c.CreatedAt) {
			notes = append(notes, fmt.Sprintf("ignored the override recorded in comment %d: it was edited after swarm-gate posted it (updated %s, created %s)", c.ID, c.UpdatedAt.UTC().Format(time.RFC3339), c.CreatedAt.UTC().Format(time.RFC3339)))
			continue
		}
		if len(ms) > 1 {
			notes = append(notes, fmt.Sprintf("ignored comment %d: it holds %d override markers; swarm-gate writes one", c.ID, len(ms)))
			continue
		}
		rec, err := parseRecord(ms[0][1])
		if err != nil {
			notes = append(notes, fmt.Sprintf("ignored the override recorded in comment %d: %v", c.ID, err))
			continue
		}
		out = append(out, Marker{Comment: c, Record: *rec})
	}
	return out, notes
}

// Recorded reports whether the source comment's override is already
// recorded by botLogin (idempotency: the key is the comment id).
func Recorded(comments []Comment, botLogin string, sourceID int64) bool {
	for _, c := range comments {
		if !strings.EqualFold(c.Author, botLogin) {
			continue
		}
		for _, m := range marker.FindAllStringSubmatch(c.Body, -1) {
			if rec, err := parseRecord(m[1]); err == nil && rec.CommentID == sourceID {
				return true
			}
		}
	}
	return false
}

func parseRecord(js string) (*Record, error) {
	var rec Record
	dec := json.NewDecoder(strings.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("the marker is not valid: %w", err)
	}
	switch {
	case rec.Version != 1:
		return nil, fmt.Errorf("marker version %d is not one this swarm-gate reads", rec.Version)
	case !IsOverride(rec.Command):
		return nil, fmt.Errorf("the marker's command %q records no override", rec.Command)
	case rec.Actor == "" || rec.StructureHash == "" || rec.HeadSHA == "" || rec.CommentID == 0:
		return nil, fmt.Errorf("the marker lacks the actor, head SHA, structure hash or comment id")
	}
	if _, err := time.Parse(time.RFC3339, rec.RecordedAt); err != nil {
		return nil, fmt.Errorf("the marker's recorded_at %q is not an RFC 3339 time", rec.RecordedAt)
	}
	return &rec, nil
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

package swarm

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// maxReceiptFiles bounds how many files of .swarm/review-receipts are read.
const maxReceiptFiles = 20000

// receiptIndexName matches the store's manifest, index.json, and the copies
// Finder and iCloud make of it ("index 2.json"): an index, not a receipt.
var receiptIndexName = regexp.MustCompile(`^index( \d+)?\.json$`)

// Receipts is what .swarm/review-receipts/ holds: one JSON file per review
// receipt written by the plugin (src/hooks/review-receipt.ts,
// <YYYY-MM-DD>-<id>.json) beside an index.json manifest, which is skipped.
// Only the folder's own *.json files are read; subfolders are not followed
// and other names (the plugin's *.tmp.* write files) are ignored.
type Receipts struct {
	// DirErr is set when the folder exists but cannot be listed (or is not
	// a folder).
	DirErr error
	// Items are the receipts read, sorted by ReviewedAt, then Path.
	Items []ReviewReceipt
	// Broken has one *ArtifactError per receipt file that could not be read
	// or parsed, in path order.
	Broken []error
}

// ReviewReceipt is one review receipt: {schema_version, id, receipt_type,
// verdict ("approved" or "rejected"), reviewer:{agent}, reviewed_at,
// scope_fingerprint:{hash, scope_description, content_length},
// blocking_findings:[...], ...}. Only verdict is required; a field of
// another type than expected reads as empty.
type ReviewReceipt struct {
	Path             string
	ID               string
	ReceiptType      string
	Verdict          string
	ReviewerAgent    string
	ReviewedAt       string
	ScopeHash        string
	ScopeDescription string
	// BlockingFindings is the length of the blocking_findings array (0 when
	// absent, as in approved receipts).
	BlockingFindings int
}

func loadReceipts(fsys fs.FS) *Receipts {
	r := &Receipts{}
	entries, err := fs.ReadDir(fsys, ReceiptsDir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.DirErr = &ArtifactError{Path: ReceiptsDir, Err: unwrapPath(err)}
		}
		return r
	}
	if len(entries) > maxReceiptFiles {
		r.DirErr = &ArtifactError{Path: ReceiptsDir, Err: fmt.Errorf("holds %d entries, more than %d; refusing to read them all", len(entries), maxReceiptFiles)}
		return r
	}
	for _, d := range entries {
		name := d.Name()
		if d.IsDir() || !strings.HasSuffix(name, ".json") || receiptIndexName.MatchString(name) {
			continue
		}
		p := ReceiptsDir + "/" + name
		data, err := readArtifact(fsys, p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Listed but gone (a dangling symlink, say): still a receipt
				// the folder claims to have.
				err = &ArtifactError{Path: p, Err: unwrapPath(err)}
			}
			r.Broken = append(r.Broken, err)
			continue
		}
		rr, err := ParseReviewReceipt(p, data)
		if err != nil {
			r.Broken = append(r.Broken, err)
			continue
		}
		r.Items = append(r.Items, *rr)
	}
	sort.SliceStable(r.Items, func(i, j int) bool {
		a, b := &r.Items[i], &r.Items[j]
		if a.ReviewedAt != b.ReviewedAt {
			return a.ReviewedAt < b.ReviewedAt
		}
		return a.Path < b.Path
	})
	return r
}

// ParseReviewReceipt parses one review receipt file. It must be a JSON
// object with a string "verdict"; other fields are read when they have the
// expected type and unknown fields are ignored. Errors are *ArtifactError.
func ParseReviewReceipt(name string, data []byte) (*ReviewReceipt, error) {
	v, data, err := parseJSONFile(name, data)
	if err != nil {
		return nil, err
	}
	fail := func(v *jsjson.Value, format string, args ...any) error {
		return &ArtifactError{Path: name, Line: jsjson.Line(data, v.Offset), Err: fmt.Errorf(format, args...)}
	}
	if v.Kind != jsjson.Object {
		return nil, fail(v, "want a JSON object (a review receipt), found %s", v.Kind)
	}
	rr := &ReviewReceipt{Path: name}
	verdict := v.Get("verdict")
	if verdict == nil {
		return nil, fail(v, `missing string field "verdict"`)
	}
	s, ok := verdict.AsString()
	if !ok {
		return nil, fail(verdict, `"verdict" must be a string, found %s`, verdict.Kind)
	}
	rr.Verdict = s
	rr.ID, _ = v.Get("id").AsString()
	rr.ReceiptType, _ = v.Get("receipt_type").AsString()
	rr.ReviewedAt, _ = v.Get("reviewed_at").AsString()
	rr.ReviewerAgent, _ = v.Get("reviewer").Get("agent").AsString()
	fp := v.Get("scope_fingerprint")
	rr.ScopeHash, _ = fp.Get("hash").AsString()
	rr.ScopeDescription, _ = fp.Get("scope_description").AsString()
	if bf := v.Get("blocking_findings"); bf != nil && bf.Kind == jsjson.Array {
		rr.BlockingFindings = len(bf.Elems)
	}
	return rr, nil
}

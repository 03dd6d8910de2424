package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/changeset"
	"github.com/swarm-gate/swarm-gate/internal/sast"
	"github.com/swarm-gate/swarm-gate/internal/secrets"
)

// MaxSecretFindings bounds the secret findings one run reports (new and
// pre-existing together); the rest are counted in SASTScan.SecretsOmitted.
const MaxSecretFindings = 1000

// maxBaseRead bounds the merge-base file read to tell a pre-existing
// secret; a larger file is not read and its secrets count as new.
const maxBaseRead = 16 << 20

// scanSecrets adds to s what gitleaks' default rules (internal/secrets)
// find on the lines the pull request adds, in every changed text file: a
// finding whose value is already in the merge base's version of the file
// (the old path of a rename or copy) is pre-existing, shown and not
// blamed; one under a test path (secrets.TestPathReason) is new at low
// severity, with the reason; the rest are new at high severity. The value
// is masked in the excerpt here, before anything else sees the finding,
// and never kept. When the rules cannot be loaded, s.SecretsErr says why
// and the gate fails closed.
//
// The scans themselves come from scans (startSecretScans), which ran them
// while swarm/sast read and scanned the files, and, for a file git diffs as
// binary, from whole (binaryTextScan).
func scanSecrets(s *gates.SASTScan, changes *changeset.ChangeSet, mergeBaseFS fs.FS, scans func() ([]secretScan, error), whole map[int]secretScan) {
	results, err := scans()
	if err != nil {
		s.SecretsErr = err
		return
	}
	// Generated, vendored and minified files, which the Tier A rules skip,
	// are scanned for secrets like any other: a key committed in dist/ or
	// vendor/ is as live as one in the source, and gitleaks scans them too.
	total := 0
	for i := range changes.Files {
		f := &changes.Files[i]
		if f.Status == changeset.Deleted || f.NewPath == "" {
			continue
		}
		r := &results[i]
		w, isWhole := whole[i]
		if isWhole {
			r = &w
		}
		if !r.scanned {
			continue // no added lines, or on gitleaks' global allowlist
		}
		if isWhole {
			s.SecretWhole = append(s.SecretWhole, f.NewPath)
		}
		s.SecretFiles++
		s.SecretLines += max(f.AddedCount(), r.lines)
		found, dismissed, omitted := r.found, r.dismissed, r.omitted
		s.SecretsOmitted += omitted
		for _, d := range dismissed {
			s.Dismissed = append(s.Dismissed, secretFinding(f.NewPath, d, sast.High, d.Note))
		}
		if len(found) == 0 {
			continue
		}
		var base []byte
		if f.Status != changeset.Added && f.OldPath != "" {
			base = readBase(mergeBaseFS, f.OldPath)
			if u, ok := decodeUTF16(base); ok && f.Binary {
				base = u // the values a UTF-16 file's scan found are UTF-8
			}
		}
		testReason := secrets.TestPathReason(f.NewPath)
		for _, x := range found {
			if total == MaxSecretFindings {
				s.SecretsOmitted++
				continue
			}
			total++
			switch {
			case x.Secret != "" && base != nil && bytes.Contains(base, []byte(x.Secret)):
				s.SecretsPre = append(s.SecretsPre, secretFinding(f.NewPath, x, sast.High, "the same value is in the merge base's "+f.OldPath))
			case testReason != "":
				s.Secrets = append(s.Secrets, secretFinding(f.NewPath, x, sast.Low, "low severity: "+testReason+", where credentials are usually sample values"))
			default:
				s.Secrets = append(s.Secrets, secretFinding(f.NewPath, x, sast.High, ""))
			}
		}
	}
}

// secretScan is what ScanLines gave for one changed file; scanned is
// false for a file it was not run on.
type secretScan struct {
	scanned          bool
	found, dismissed []secrets.Finding
	omitted          int
	lines            int // lines scanned, when not the added lines (binaryTextScan)
}

// binaryTextScan scans the whole content of a changed file git diffs as
// binary: git gives no lines for it, and skipping it would hide what it
// holds (a .env or YAML file with a stray NUL or control byte, a
// PowerShell-written UTF-16 file). UTF-16 is decoded to UTF-8 first
// (decodeUTF16); then every control byte but tab, line feed and carriage
// return, and every byte of invalid UTF-8, is read as a space, a
// separator that keeps the line numbers. A binary in earnest (an image,
// an archive) is scanned the same way: a secret in a file is a secret
// whatever else the file holds. ok is false only when the rules cannot
// be loaded.
func binaryTextScan(path string, content []byte) (r secretScan, ok bool) {
	sc, err := secrets.Default()
	if err != nil {
		return r, false // startSecretScans reports the error
	}
	if sc.PathAllowed(path) {
		return r, true // on gitleaks' global allowlist: not scanned, as any file there
	}
	if u, ok := decodeUTF16(content); ok {
		content = u
	}
	text, odd := controlsAsSpaces(content)
	r.scanned = true
	// Lines are counted for text only, where no byte but NUL (or vertical
	// tab, form feed) was replaced: the line feed bytes of an image or a
	// NumPy array are no lines. Any other file counts as a scanned file
	// with no lines: fewer lines said than scanned, never more.
	if odd == 0 {
		r.lines = bytes.Count(text, []byte{'\n'})
		if len(text) > 0 && text[len(text)-1] != '\n' {
			r.lines++ // a last line without its newline
		}
	}
	r.found, r.dismissed, r.omitted = sc.ScanFile(path, text)
	return r, true
}

// controlsAsSpaces returns a copy of content with every control byte
// other than tab, line feed and carriage return (NUL among them, and DEL)
// and every byte of invalid UTF-8 replaced by a space, and how many bytes
// it replaced other than NUL, vertical tab and form feed.
func controlsAsSpaces(content []byte) (text []byte, odd int) {
	text = make([]byte, 0, len(content))
	for len(content) > 0 {
		c := content[0]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				if c != 0 && c != '\v' && c != '\f' {
					odd++
				}
				c = ' '
			}
			text = append(text, c)
			content = content[1:]
			continue
		}
		r, n := utf8.DecodeRune(content)
		if r == utf8.RuneError && n == 1 {
			text = append(text, ' ')
			odd++
		} else {
			text = append(text, content[:n]...)
		}
		content = content[n:]
	}
	return text, odd
}

// decodeUTF16 gives content decoded from UTF-16 to UTF-8, and true, when
// it starts with a UTF-16 byte order mark (LE or BE), or, without one,
// when its first code units look like UTF-16 text: the high byte zero
// and the low byte not in at least 9 in 10 of them (mostly ASCII text).
// Line feeds stay line feeds, so line numbers are kept.
func decodeUTF16(content []byte) ([]byte, bool) {
	var be bool
	switch {
	case len(content) >= 2 && content[0] == 0xff && content[1] == 0xfe:
		content = content[2:]
	case len(content) >= 2 && content[0] == 0xfe && content[1] == 0xff:
		be, content = true, content[2:]
	default:
		n := min(len(content)/2, 512) // code units looked at
		if n < 2 {
			return nil, false
		}
		var le16, be16 int // units that look like ASCII in LE, in BE
		for i := 0; i < 2*n; i += 2 {
			lo, hi := content[i], content[i+1]
			if hi == 0 && lo != 0 {
				le16++
			}
			if lo == 0 && hi != 0 {
				be16++
			}
		}
		switch {
		case le16*10 >= n*9:
		case be16*10 >= n*9:
			be = true
		default:
			return nil, false
		}
	}
	units := make([]uint16, len(content)/2)
	for i := range units {
		if be {
			units[i] = uint16(content[2*i])<<8 | uint16(content[2*i+1])
		} else {
			units[i] = uint16(content[2*i]) | uint16(content[2*i+1])<<8
		}
	}
	return []byte(string(utf16.Decode(units))), true
}

// startSecretScans runs ScanLines on the added lines of every changed file
// scanSecrets may report, on a goroutine of its own (the rules are pure
// CPU work on lines already in memory, and the Scanner is safe for
// concurrent use), so that it overlaps swarm/sast reading and scanning
// whole files. A file stream scanned as the diff produced it, and that
// the change set still has as it was then, is not scanned again; one whose
// lines the source released (changeset.File.Released) without such a
// scan cannot be, and makes the secret scan fail closed. The returned
// function waits for the scans and gives them by index into
// changes.Files, or the error loading the rules. stream may be nil.
func startSecretScans(changes *changeset.ChangeSet, stream *secretStream) func() ([]secretScan, error) {
	sc, err := secrets.Default()
	if err != nil {
		return func() ([]secretScan, error) { return nil, err }
	}
	results := make([]secretScan, len(changes.Files))
	var lost []string // released without a scan
	done := make(chan struct{})
	go func() {
		defer close(done)
		stream.wait()
		var lines []secrets.Line
		for i := range changes.Files {
			f := &changes.Files[i]
			if r := stream.result(f); r != nil {
				results[i] = *r
				continue
			}
			if f.Released > 0 {
				lost = append(lost, f.NewPath)
				continue
			}
			results[i] = scanAdded(sc, f, &lines)
		}
	}()
	return func() ([]secretScan, error) {
		<-done
		if len(lost) > 0 {
			return nil, fmt.Errorf("the added lines of %d changed files (%s first) were released after the streamed secret scan, which has no result for them as the change set has them; please report this", len(lost), lost[0])
		}
		return results, nil
	}
}

// scanAdded is the secret scan of one changed file's added lines (lines
// is scratch space); not scanned when scanSecrets reports nothing of it.
func scanAdded(sc *secrets.Scanner, f *changeset.File, lines *[]secrets.Line) secretScan {
	var r secretScan
	if f.Status == changeset.Deleted || f.NewPath == "" || len(f.Added) == 0 && !f.Binary || sc.PathAllowed(f.NewPath) {
		return r
	}
	*lines = (*lines)[:0]
	for _, l := range f.Added {
		*lines = append(*lines, secrets.Line{N: l.Line, Text: l.Text})
	}
	r.scanned = true
	r.found, r.dismissed, r.omitted = sc.ScanLines(f.NewPath, *lines)
	return r
}

// secretStream is the secret scan of swarm/sast run on each changed file
// as the diff produces it (source.Git.OnFile), on a goroutine of its own,
// so that the source can release the file's added lines once every
// streaming reader has seen them (issue 25): what is kept of a file is its
// changeset.Key and its scan, and, when SARIF logs are read, the runs of
// its added line numbers (gates.SASTScan.AddedRuns). startSecretScans
// takes the scans.
type secretStream struct {
	ctx      context.Context
	keepRuns bool
	done1    func(*changeset.File) // when not nil, called with each file once scanned
	files    chan *changeset.File
	closed   sync.Once
	done     chan struct{}
	// Only read after done is closed.
	byPath map[string]*streamedSecret // nil: two files of one head path
	runs   map[string][][2]int
}

// streamedSecret is the scan of one streamed file.
type streamedSecret struct {
	key  changeset.Key
	scan secretScan
}

// startSecretStream starts scanning the files File will pass; keepRuns
// keeps their added line numbers too; done, when not nil, is called with
// each file once the scan is finished with it.
func startSecretStream(ctx context.Context, keepRuns bool, done func(*changeset.File)) *secretStream {
	s := &secretStream{ctx: ctx, keepRuns: keepRuns, done1: done, files: make(chan *changeset.File, 64), done: make(chan struct{}),
		byPath: map[string]*streamedSecret{}, runs: map[string][][2]int{}}
	go s.run()
	return s
}

func (s *secretStream) run() {
	defer close(s.done)
	sc, err := secrets.Default()
	var lines []secrets.Line
	for f := range s.files {
		s.scan(sc, err, f, &lines)
		if s.done1 != nil {
			s.done1(f)
		}
	}
}

// scan scans one file File passed and keeps its result; err is the error
// loading the rules.
func (s *secretStream) scan(sc *secrets.Scanner, err error, f *changeset.File, lines *[]secrets.Line) {
	if f.NewPath == "" {
		return // deleted: nothing to scan
	}
	if s.keepRuns {
		s.runs[f.NewPath] = lineRuns(f.Added)
	}
	if err != nil || s.ctx.Err() != nil {
		return // startSecretScans reports the error; Check the cancellation
	}
	if _, dup := s.byPath[f.NewPath]; dup {
		s.byPath[f.NewPath] = nil // startSecretScans scans both
		return
	}
	s.byPath[f.NewPath] = &streamedSecret{key: changeset.KeyOf(f), scan: scanAdded(sc, f, lines)}
}

// File queues f for the scan; f must not change afterwards. Not after
// close.
func (s *secretStream) File(f *changeset.File) { s.files <- f }

// close ends the input; the queued files are still scanned. It may be
// called more than once.
func (s *secretStream) close() {
	if s != nil {
		s.closed.Do(func() { close(s.files) })
	}
}

// wait ends the input and waits until every queued file is scanned; a nil
// stream has nothing to wait for.
func (s *secretStream) wait() {
	if s != nil {
		s.close()
		<-s.done
	}
}

// result is the streamed scan of f, or nil when there is none for exactly
// this file (changeset.Key.Same). Only after wait.
func (s *secretStream) result(f *changeset.File) *secretScan {
	if s == nil || f.NewPath == "" {
		return nil
	}
	r := s.byPath[f.NewPath]
	if r == nil || !r.key.Same(f) {
		return nil
	}
	return &r.scan
}

// lineRuns gives the runs of consecutive line numbers of added lines (in
// ascending order), as first and last line.
func lineRuns(added []changeset.AddedLine) [][2]int {
	var runs [][2]int
	for _, l := range added {
		if n := len(runs); n > 0 && runs[n-1][1]+1 == l.Line {
			runs[n-1][1] = l.Line
			continue
		}
		runs = append(runs, [2]int{l.Line, l.Line})
	}
	return runs
}

// secretFinding is a secrets.Finding as swarm/sast reports it: rule
// secret/<gitleaks rule id>, the excerpt masked (the value is dropped).
func secretFinding(path string, x secrets.Finding, sev sast.Severity, note string) sast.Finding {
	msg := strings.TrimRight(x.Description, ". ")
	if msg == "" {
		msg = "a credential"
	}
	if x.EndLine > x.Line {
		msg += fmt.Sprintf(" (lines %d-%d)", x.Line, x.EndLine)
	}
	return sast.Finding{
		RuleID:   "secret/" + x.RuleID,
		Severity: sev,
		Message:  msg,
		File:     path, Line: x.Line, Column: x.Column,
		// Already masked by internal/secrets; MaskLine on top catches a
		// second credential on the line that no rule reported.
		Excerpt:     sast.MaskLine(x.Excerpt),
		Engine:      "gitleaks",
		Remediation: "Revoke the credential and load it from a secret store or the environment",
		Note:        note,
	}
}

func readBase(fsys fs.FS, p string) []byte {
	info, err := fs.Stat(fsys, p)
	if err != nil || info.IsDir() || info.Size() > maxBaseRead {
		return nil
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil
	}
	return data
}

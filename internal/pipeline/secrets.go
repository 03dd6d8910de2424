package pipeline

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
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
// binary that is text but for NUL bytes, from whole (binaryTextScan).
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
		if w, ok := whole[i]; ok {
			r = &w
		}
		if !r.scanned {
			continue // no added lines, or on gitleaks' global allowlist
		}
		s.SecretFiles++
		s.SecretLines += max(len(f.Added), r.lines)
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
// binary when it is text but for NUL bytes (a .env or YAML file with one
// stray NUL): git gives no lines for it, and skipping it would hide what
// it holds. A NUL is read as a space, a separator that keeps the line
// numbers. ok is false for content that is binary in earnest (other
// control bytes, invalid UTF-8: an image, an archive), which stays skipped
// as gitleaks skips it.
func binaryTextScan(path string, content []byte) (r secretScan, ok bool) {
	if !isTextButNUL(content) {
		return r, false
	}
	sc, err := secrets.Default()
	if err != nil {
		return r, false // startSecretScans reports the error
	}
	if sc.PathAllowed(path) {
		return r, true // on gitleaks' global allowlist: not scanned, as any file there
	}
	text := bytes.ReplaceAll(content, []byte{0}, []byte{' '})
	r.scanned, r.lines = true, bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		r.lines++ // a last line without its newline
	}
	r.found, r.dismissed, r.omitted = sc.ScanFile(path, text)
	return r, true
}

// isTextButNUL reports whether content is UTF-8 text whose only control
// bytes are NUL and whitespace (tab, line feed, vertical tab, form feed,
// carriage return).
func isTextButNUL(content []byte) bool {
	for _, c := range content {
		if c < 0x20 && c != 0 && (c < '\t' || c > '\r') {
			return false
		}
	}
	return utf8.Valid(content)
}

// startSecretScans runs ScanLines on the added lines of every changed file
// scanSecrets may report, on a goroutine of its own (the rules are pure
// CPU work on lines already in memory, and the Scanner is safe for
// concurrent use), so that it overlaps swarm/sast reading and scanning
// whole files. The returned function waits for the scans and gives them
// by index into changes.Files, or the error loading the rules.
func startSecretScans(changes *changeset.ChangeSet) func() ([]secretScan, error) {
	sc, err := secrets.Default()
	if err != nil {
		return func() ([]secretScan, error) { return nil, err }
	}
	results := make([]secretScan, len(changes.Files))
	done := make(chan struct{})
	go func() {
		defer close(done)
		var lines []secrets.Line
		for i := range changes.Files {
			f := &changes.Files[i]
			if f.Status == changeset.Deleted || f.NewPath == "" || len(f.Added) == 0 && !f.Binary || sc.PathAllowed(f.NewPath) {
				continue
			}
			lines = lines[:0]
			for _, l := range f.Added {
				lines = append(lines, secrets.Line{N: l.Line, Text: l.Text})
			}
			r := &results[i]
			r.scanned = true
			r.found, r.dismissed, r.omitted = sc.ScanLines(f.NewPath, lines)
		}
	}()
	return func() ([]secretScan, error) {
		<-done
		return results, nil
	}
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

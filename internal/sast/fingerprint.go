package sast

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Fingerprints fills Fingerprint, ReflowKey and Stable of a batch of findings
// as the plugin's sast-baseline.ts does (spec section 7.3). content maps a
// repository-relative path (as RelFile returns it) to that file's bytes; a
// path missing from the map is unreadable, which makes its findings
// unstable.
//
// The batch matters: the occurrence index #k counts earlier findings of the
// same relFile|rule_id|h16 in slice order, so pass the findings in scan
// order (ScanFile's order, file after file), all of them, before any cap.
func Fingerprints(findings []Finding, content map[string][]byte) {
	FingerprintsFunc(findings, func(rel string) ([]byte, bool) {
		b, ok := content[rel]
		return b, ok
	})
}

// FingerprintsFunc is Fingerprints reading each file through read, called at
// most once per file; ok false means the file is unreadable.
func FingerprintsFunc(findings []Finding, read func(relFile string) (content []byte, ok bool)) {
	files := map[string][]string{} // relFile -> lines; nil when unreadable
	seen := map[string]int{}       // base key -> occurrences so far
	for i := range findings {
		f := &findings[i]
		rel := RelFile(f.File)
		lines, cached := files[rel]
		if !cached && !outside(rel) {
			if b, ok := read(rel); ok {
				lines = strings.Split(jsText(b), "\n")
			}
			files[rel] = lines
		}
		var base string
		if outside(rel) || lines == nil {
			base = rel + "|" + f.RuleID + "|L" + strconv.Itoa(f.Line) + "|UNSTABLE"
			f.ReflowKey, f.Stable = "", false
		} else {
			idx := f.Line - 1
			window := lineAt(lines, idx-1) + "\n" + lineAt(lines, idx) + "\n" + lineAt(lines, idx+1)
			base = rel + "|" + f.RuleID + "|" + hash16(window)
			f.ReflowKey = rel + "|" + f.RuleID + "|" + hash16(lineAt(lines, idx))
			f.Stable = true
		}
		k := seen[base]
		seen[base] = k + 1
		f.Fingerprint = base + "|#" + strconv.Itoa(k)
	}
}

// FingerprintFile is Fingerprints for the findings of one readable file.
func FingerprintFile(findings []Finding, content []byte) {
	FingerprintsFunc(findings, func(string) ([]byte, bool) { return content, true })
}

// RelFile is the plugin's relFile of a finding's path: '\' becomes '/' and
// the path is cleaned, as Node's path.relative leaves it. File paths are
// expected to be repository-relative already; an absolute path is kept as
// it is and, like a path that climbs out of the workspace, is unstable.
func RelFile(file string) string {
	p := strings.ReplaceAll(file, `\`, "/")
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '/' {
		return p
	}
	p = path.Clean(p)
	if p == "." {
		return ""
	}
	return p
}

// outside reports whether a relFile is unstable by its path alone: the
// plugin's test is a plain prefix "..". Absolute paths (which the plugin
// would have relativised to a "../" path) are treated the same.
func outside(rel string) bool {
	return strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, "/") ||
		len(rel) >= 3 && rel[1] == ':' && rel[2] == '/'
}

// lineAt is the JavaScript-trimmed line idx, or "" out of range.
func lineAt(lines []string, idx int) string {
	if idx < 0 || idx >= len(lines) {
		return ""
	}
	return jsjson.Trim(lines[idx])
}

// hash16 is the first 16 hex digits of sha256(s).
func hash16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// ParseFingerprint splits a fingerprint into its relFile and rule id (the
// first two '|'-separated fields; the plugin prunes baselines by the first),
// and reports whether it is stable. ok is false when it has fewer than four
// fields.
func ParseFingerprint(fp string) (relFile, ruleID string, stable, ok bool) {
	parts := strings.Split(fp, "|")
	if len(parts) < 4 {
		return "", "", false, false
	}
	stable = !(len(parts) >= 5 && parts[len(parts)-2] == "UNSTABLE")
	return parts[0], parts[1], stable, true
}

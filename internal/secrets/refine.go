package secrets

import (
	"path"
	"regexp"
	"strings"
)

// Rules whose matches refine judges: they match on a name ("key", "token",
// "curl ... -H") rather than on a credential's own format, so on real code
// they also match identifiers and file names.
var refined = map[string]bool{"generic-api-key": true, "curl-auth-header": true}

var (
	// A dotted or slashed name ending in a short extension: config.yaml,
	// src/keys/server2.pem.
	fileLike = regexp.MustCompile(`^[\w.@/-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,4}$`)
	// Words of letters joined by '_', '.', '-' or case, each word ending in
	// at most two digits: TOKEN_V2, authProvider3, user.api_key1. A random
	// credential mixes digits inside its words.
	identLike = regexp.MustCompile(`^[A-Za-z_$][A-Za-z_$]*[0-9]{0,2}(?:[._-]+[A-Za-z_$]+[0-9]{0,2})*$`)
)

// refine says why a finding is a false alarm of a name-based rule ("" when
// it is kept): a value without a digit (a word, a placeholder such as
// your_api_key_here), one that looks like a file name, or one that looks
// like an identifier (a variable holding the key, not the key).
func refine(f Finding) string {
	if !refined[f.RuleID] {
		return ""
	}
	v := f.Secret
	switch {
	case !strings.ContainsAny(v, "0123456789"):
		return "the value has no digit: a word or a name, not a credential"
	case fileLike.MatchString(v) && path.Ext(v) != "":
		return "the value looks like a file name"
	case identLike.MatchString(v) && camelOrSnake(v):
		return "the value looks like an identifier"
	}
	return ""
}

// camelOrSnake reports whether v is made of words: separated by '_', '.' or
// '-', or by a lower-to-upper case change, with no word longer than 20
// letters (a credential of letters and two final digits is one long word).
func camelOrSnake(v string) bool {
	words := 0
	run := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '_' || c == '.' || c == '-' || c == '$':
			run = 0
			continue
		case i > 0 && 'A' <= c && c <= 'Z' && 'a' <= v[i-1] && v[i-1] <= 'z':
			run = 0
			words++
		case run == 0:
			words++
		}
		run++
		if run > 20 {
			return false
		}
	}
	return words >= 2
}

// testDirs are path segments that mark test code and test data.
var testDirs = map[string]bool{"test": true, "tests": true, "__tests__": true, "fixtures": true, "testdata": true}

// TestPathReason says why a path is test code or test data, whose secrets
// are usually sample values ("" when it is not): a test/, tests/,
// __tests__/, fixtures/ or testdata/ directory, or a name like *_test.*,
// *.spec.* or *.test.*.
func TestPathReason(p string) string {
	segs := strings.Split(p, "/")
	for _, s := range segs[:len(segs)-1] {
		if testDirs[s] {
			return "under " + s + "/, a test path"
		}
	}
	base := segs[len(segs)-1]
	stem := base
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		stem = base[:i]
	}
	switch {
	case strings.HasSuffix(stem, "_test"):
		return "a test file (*_test.*)"
	case strings.Contains(base, ".spec."):
		return "a test file (*.spec.*)"
	case strings.Contains(base, ".test."):
		return "a test file (*.test.*)"
	}
	return ""
}

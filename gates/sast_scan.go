package gates

import (
	"bytes"
	"path"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/placeholder"
	"github.com/swarm-gate/swarm-gate/internal/sast"
)

// ScanSASTFile is what swarm/sast judges in one file's content: the
// plugin's rules (sast.ScanFile), fingerprinted against that content as the
// plugin does, then refined (sast.Refine) with swarm/placeholders' lexer
// (placeholder.CodeAt) telling code from comments and strings. dismissed
// are the findings the refinement set aside, each with its Note; skipped
// is ScanFile's. A file without an extension whose #! line names an
// interpreter with rules (bin/deploy: #!/usr/bin/env python3) is scanned
// as that language.
//
// The pipeline calls it on both sides of a changed file, so that head and
// merge base are judged alike; it reads nothing itself.
func ScanSASTFile(p string, content []byte) (findings, dismissed []sast.Finding, skipped string) {
	as := p + shebangExt(p, content)
	findings, skipped = sast.ScanFile(as, content)
	if skipped != "" {
		return nil, nil, skipped
	}
	for i := range findings {
		findings[i].File = p
	}
	sast.FingerprintFile(findings, content)
	findings, dismissed = sast.Refine(as, findings, content, placeholder.CodeAt)
	return findings, dismissed, ""
}

// shebangExt is the extension of the language a file without one runs as,
// by its #! line, when the plugin has rules for it ("" otherwise): by its
// name alone no rule would read it, yet the script runs all the same.
func shebangExt(p string, content []byte) string {
	if base := path.Base(p); strings.LastIndexByte(base, '.') > 0 || !bytes.HasPrefix(content, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(content[2:min(len(content), 256)], []byte("\n"))
	words := strings.Fields(string(line))
	if len(words) > 0 && path.Base(words[0]) == "env" {
		words = words[1:]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") { // env -S
			words = words[1:]
		}
	}
	if len(words) == 0 {
		return ""
	}
	name := strings.TrimRight(path.Base(words[0]), "0123456789.")
	switch name {
	case "python", "pypy":
		return ".py"
	case "node", "nodejs", "bun":
		return ".js"
	case "deno", "ts-node", "tsx":
		return ".ts"
	case "php":
		return ".php"
	}
	return ""
}

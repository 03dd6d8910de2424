package gates

import (
	"strings"
	"testing"
)

// TestScanSASTFileShebang: a script without an extension is scanned as the
// language its #! line names, when the plugin has rules for it; its
// findings keep the script's path, and comments are still told from code.
func TestScanSASTFileShebang(t *testing.T) {
	py := "import os\nos.system(\"rm -rf \" + input())\n"
	cases := []struct {
		name, path, content string
		rule                string // the finding's rule, "" for none
		skipped             string
	}{
		{"python by env", "bin/deploy", "#!/usr/bin/env python3\n" + py, "sast/py-os-system", ""},
		{"python by path and version", "scripts/run", "#!/usr/bin/python3.11\n" + py, "sast/py-os-system", ""},
		{"env -S", "bin/x", "#!/usr/bin/env -S python3 -u\n" + py, "sast/py-os-system", ""},
		{"node", "bin/cli", "#!/usr/bin/env node\neval(process.argv[2]);\n", "sast/js-eval", ""},
		{"a comment is no code", "bin/deploy", "#!/usr/bin/env python3\n# os.system(\"rm -rf \" + input())\n", "", ""},
		{"no rules for the interpreter", "bin/tool", "#!/bin/sh\n" + py, "", "non-code"},
		{"no #! line", "bin/tool", py, "", "non-code"},
		{"an extension decides", "notes.txt", "#!/usr/bin/env python3\n" + py, "", "non-code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			findings, _, skipped := ScanSASTFile(c.path, []byte(c.content))
			if skipped != c.skipped {
				t.Errorf("skipped %q, want %q", skipped, c.skipped)
			}
			var got []string
			for _, f := range findings {
				got = append(got, f.RuleID)
				if f.File != c.path || !strings.HasPrefix(f.Fingerprint, c.path+"|") {
					t.Errorf("finding of %q, fingerprint %q: want the script's path %q", f.File, f.Fingerprint, c.path)
				}
			}
			if c.rule == "" && len(got) > 0 || c.rule != "" && (len(got) != 1 || got[0] != c.rule) {
				t.Errorf("findings %v, want %q", got, c.rule)
			}
		})
	}
}

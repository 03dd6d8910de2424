package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	three := write("three.yml", "version: 1\nplan_freeze:\n  approval: humans\nscope:\n  extras: [../x]\nsast:\n  severity_treshold: high\n")
	one := write("one.yml", "drift: []\n")
	good := write("good.yml", "version: 1\nplan_freeze:\n  approval: human\n")
	syntax := write("syntax.yml", "version: 1\n  bad: [\n")
	yamlName := write("swarm-gate.yaml", "version: 1\n")
	huge := write("huge.yml", "# "+strings.Repeat("x", 1<<20)+"\n")
	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout []string
		wantStderr string
	}{
		{"three mistakes, three lines", []string{"config", "validate", three}, 1, []string{
			three + ":3:13: plan_freeze.approval: \"humans\" is not one of any, base-anchored, human\n",
			three + ":5:12: scope.extras[0]: \"../x\" must be relative",
			three + ":7:3: unknown key \"severity_treshold\" in sast",
			three + ": 3 problems\n",
		}, ""},
		{"one mistake", []string{"config", "validate", one}, 1, []string{one + ":1:8: drift must be a mapping", one + ": 1 problem\n"}, ""},
		{"valid", []string{"config", "validate", good}, 0, []string{good + ": valid\n"}, ""},
		{"YAML syntax error has a line", []string{"config", "validate", syntax}, 1, []string{syntax + ":2: "}, ""},
		{".yaml spelling: valid YAML, but the check would not read it", []string{"config", "validate", yamlName}, 1, []string{yamlName + ": swarm-gate reads .github/swarm-gate.yml (with .yml): rename the file", yamlName + ": 1 problem\n"}, ""},
		{"over the size limit", []string{"config", "validate", huge}, 1, []string{huge + ": is 1048579 bytes, over the 1048576-byte limit of a policy file\n", huge + ": 1 problem\n"}, ""},
		{"missing file", []string{"config", "validate", filepath.Join(dir, "nope.yml")}, exitError, nil, "nope.yml does not exist"},
		{"directory", []string{"config", "validate", dir}, exitError, nil, "is a directory"},
		{"two files", []string{"config", "validate", good, one}, exitUsage, nil, "usage: swarm-gate config validate [FILE]"},
		{"no subcommand", []string{"config"}, exitUsage, nil, "the subcommand is validate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stdout %q stderr %q", code, tt.code, out.String(), errb.String())
			}
			rest := out.String()
			for _, w := range tt.wantStdout {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("stdout lacks (in order) %q:\n%s", w, out.String())
					break
				}
				rest = rest[i+len(w):]
			}
			if tt.wantStderr != "" && !strings.Contains(errb.String(), tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantStderr)
			}
		})
	}
	t.Run("default path absent, the .yaml spelling present", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".github", "swarm-gate.yaml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"config", "validate"}, &out, &errb); code != 1 || !strings.Contains(out.String(), "rename the file") {
			t.Errorf("exit %d, stdout %q", code, out.String())
		}
	})
	t.Run("both spellings: the .yaml one is named as not read", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"swarm-gate.yml", "swarm-gate.yaml"} {
			if err := os.WriteFile(filepath.Join(dir, ".github", name), []byte("version: 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Chdir(dir)
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"config", "validate"}, &out, &errb); code != 0 || !strings.Contains(out.String(), ".github/swarm-gate.yaml: warning: swarm-gate reads .github/swarm-gate.yml only") {
			t.Errorf("exit %d, stdout %q", code, out.String())
		}
		// Named explicitly, it is the ignored one, not a policy that fails
		// every check.
		out.Reset()
		if code := run(context.Background(), []string{"config", "validate", ".github/swarm-gate.yaml"}, &out, &errb); code != 1 ||
			!strings.Contains(out.String(), "which is beside this file: this one is never read; delete it") || strings.Contains(out.String(), "fails closed") {
			t.Errorf("explicit .yaml: exit %d, stdout %q", code, out.String())
		}
	})
	t.Run("version takes no arguments", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"version", "--bogus"}, &out, &errb); code != exitUsage || out.Len() != 0 {
			t.Errorf("exit %d, stdout %q", code, out.String())
		}
	})
	t.Run("version -h prints usage", func(t *testing.T) {
		for _, h := range []string{"-h", "--help"} {
			var out, errb bytes.Buffer
			if code := run(context.Background(), []string{"version", h}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "usage: swarm-gate version") {
				t.Errorf("version %s: exit %d, stdout %q stderr %q", h, code, out.String(), errb.String())
			}
		}
	})
	t.Run("- reads standard input", func(t *testing.T) {
		for _, tc := range []struct {
			in   string
			code int
			want string
		}{
			{"version: 1\n", 0, "(stdin): valid\n"},
			{"", 0, "(stdin): valid\n(stdin): is empty, so the check uses the built-in defaults\n"},
			{"# only a comment\n", 0, "(stdin): is empty"},
			{"scope:\n  extras: [\"docs/**\", \"**\"]\n", 0, "(stdin): warning: scope.extras [\"**\"] allows every path"},
			{"drift: []\n", 1, "(stdin):1:8: drift must be a mapping"},
			{strings.Repeat("#", 1<<20+1), 1, "(stdin): is over the 1048576-byte limit"},
		} {
			var out, errb bytes.Buffer
			code := runConfigValidate([]string{"-"}, strings.NewReader(tc.in), &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, out.String(), tc.want, errb.String())
			}
		}
	})
	t.Run("default path absent", func(t *testing.T) {
		t.Chdir(t.TempDir())
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"config", "validate"}, &out, &errb); code != exitError || !strings.Contains(errb.String(), "built-in defaults") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	})
}

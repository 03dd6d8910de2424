package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want gates.PlanFreezeConfig
	}{
		{"empty file", "", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"only comments", "# nothing yet\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"explicit null", "~\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"version only", "version: 1\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"base-anchored", "plan_freeze:\n  approval: base-anchored\n", gates.PlanFreezeConfig{Approval: gates.ApprovalBaseAnchored}},
		{"human, legacy allowed, warn", "version: 1\nplan_freeze:\n  approval: human\n  legacy_plans: allow\n  unhashed_changes: warn\n",
			gates.PlanFreezeConfig{Approval: gates.ApprovalHuman, AllowLegacyPlans: true, WarnUnhashedChanges: true}},
		{"explicit defaults", "plan_freeze:\n  approval: any\n  legacy_plans: fail\n  unhashed_changes: fail\n  agent_overrides: default\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"agent overrides fail", "plan_freeze:\n  agent_overrides: fail\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny, AgentOverrides: gates.AgentOverridesFail}},
		{"agent overrides allow", "plan_freeze:\n  agent_overrides: allow\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny, AgentOverrides: gates.AgentOverridesAllow}},
		{"agent overrides warn: the old name of allow", "plan_freeze:\n  agent_overrides: warn\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny, AgentOverrides: gates.AgentOverridesAllow}},
		{"status regression fail", "plan_freeze:\n  status_regression: fail\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny, StatusRegression: gates.RegressionFail}},
		{"status regression warn", "plan_freeze:\n  status_regression: warn\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny, StatusRegression: gates.RegressionWarn}},
		{"status regression default", "plan_freeze:\n  status_regression: default\n", gates.PlanFreezeConfig{Approval: gates.ApprovalAny}},
		{"anchor on a section", "plan_freeze: &p\n  approval: human\n", gates.PlanFreezeConfig{Approval: gates.ApprovalHuman}},
		{"CRLF", "plan_freeze:\r\n  approval: human\r\n", gates.PlanFreezeConfig{Approval: gates.ApprovalHuman}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(Path, []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if c.PlanFreeze != tt.want {
				t.Errorf("got %+v, want %+v", c.PlanFreeze, tt.want)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		want gates.LimitsConfig
	}{
		{"", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: gates.DefaultMaxChangedFiles}},
		{"limits:\n  unscanned: fail\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: gates.DefaultMaxChangedFiles}},
		{"limits:\n  unscanned: warn\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: gates.DefaultMaxChangedFiles, WarnUnscanned: true}},
		{"limits:\n  new_generated: scan\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: gates.DefaultMaxChangedFiles, ScanNewGenerated: true}},
		{"limits:\n  new_generated: skip\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: gates.DefaultMaxChangedFiles}},
		{"limits:\n  max_file_bytes: 1048576\n", gates.LimitsConfig{MaxFileBytes: 1 << 20, MaxChangedFiles: gates.DefaultMaxChangedFiles}},
		{"limits:\n  max_file_bytes: 1073741824\n", gates.LimitsConfig{MaxFileBytes: 1 << 30, MaxChangedFiles: gates.DefaultMaxChangedFiles}},
		{"limits:\n  max_changed_files: 100\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: 100}},
		{"limits:\n  max_changed_files: 1000000\n", gates.LimitsConfig{MaxFileBytes: gates.DefaultMaxFileBytes, MaxChangedFiles: 1_000_000}},
	} {
		c, err := Parse(Path, []byte(tt.yaml))
		if err != nil {
			t.Fatalf("%q: %v", tt.yaml, err)
		}
		if c.Limits != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.yaml, c.Limits, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantLine int
		wantMsg  string
	}{
		{"unknown top key", "version: 1\nplan_frezee:\n  approval: human\n", 2, `unknown key "plan_frezee" in the top level (known keys: commands, comment, drift, limits, phase_branch, phase_wrap, placeholders, plan_freeze, plan_lint, qa_gates, sast, scope, version); did you mean "plan_freeze"?`},
		{"unknown nested key", "plan_freeze:\n  aproval: human\n", 2, `unknown key "aproval" in plan_freeze`},
		{"bad enum", "plan_freeze:\n  approval: humans\n", 2, `plan_freeze.approval: "humans" is not one of any, base-anchored, human`},
		{"bool where string", "plan_freeze:\n  legacy_plans: true\n", 2, `plan_freeze.legacy_plans must be a string, found true or false "true"`},
		{"wrong version", "version: 2\n", 1, "version: 2 is not supported"},
		{"max_file_bytes under 1 MiB", "limits:\n  max_file_bytes: 1048575\n", 2, "limits.max_file_bytes: 1048575 is not a size from 1048576 (1 MiB) to 1073741824 (1 GiB) bytes"},
		{"max_file_bytes over 1 GiB", "limits:\n  max_file_bytes: 1073741825\n", 2, "limits.max_file_bytes: 1073741825 is not a size"},
		{"max_file_bytes as a string", "limits:\n  max_file_bytes: 16MiB\n", 2, "limits.max_file_bytes must be an integer"},
		{"max_changed_files under 100", "limits:\n  max_changed_files: 99\n", 2, "limits.max_changed_files: 99 is not a count from 100 to 1000000 files"},
		{"max_changed_files over a million", "limits:\n  max_changed_files: 1000001\n", 2, "limits.max_changed_files: 1000001 is not a count"},
		{"max_changed_files as a string", "limits:\n  max_changed_files: many\n", 2, "limits.max_changed_files must be an integer"},
		{"bad unscanned", "limits:\n  unscanned: allow\n", 2, `limits.unscanned: "allow" is not one of fail, warn`},
		{"bad new_generated", "limits:\n  new_generated: ignore\n", 2, `limits.new_generated: "ignore" is not one of skip, scan`},
		{"version as string", "version: \"1\"\n", 1, "version must be an integer"},
		{"list at top", "- a\n- b\n", 1, "the top level must be a mapping"},
		{"section is a list", "plan_freeze:\n  - approval\n", 2, "plan_freeze must be a mapping"},
		{"bad status regression", "plan_freeze:\n  status_regression: never\n", 2, `plan_freeze.status_regression: "never" is not one of default, fail, warn`},
		{"empty section", "plan_freeze:\n", 1, "plan_freeze must be a mapping (key: value lines), found null"},
		{"duplicate key", "plan_freeze:\n  approval: any\n  approval: human\n", 3, `"approval" appears twice`},
		{"syntax error", "plan_freeze:\n  approval: [any\n", 0, ""},
		{"tab indentation", "plan_freeze:\n\tapproval: any\n", 2, ""},
		{"two documents", "version: 1\n---\nversion: 1\n", 2, "a second YAML document"},
		{"alias to a list", "a: &x [1]\nplan_freeze: *x\n", 0, ""},
		{"control character in a value", "version: 1\nplaceholders:\n  patterns: [\"a\x01b\"]\n", 3, `control character U+0001 at column 16: YAML does not allow it in a file (remove it, or write it as the escape "\x01" inside double quotes)`},
		{"DEL as a key", "# policy\nversion: 1\n\x7f: 1\n", 3, "control character U+007F at column 1"},
		{"C1 control after non-ASCII text", "version: 1\n# é\u0085 ok, then\u0080\n", 2, "control character U+0080 at column 14"},
		{"UTF-16 big-endian", "\xfe\xff\x00v\x00:\x00 \x001\x00\n", 1, "the file is UTF-16 (big-endian) (it starts with that byte order mark); save it as UTF-8"},
		{"UTF-16 little-endian", "\xff\xfev\x00:\x00 \x001\x00\n\x00", 1, "the file is UTF-16 (little-endian)"},
		{"UTF-32 little-endian", "\xff\xfe\x00\x00v\x00\x00\x00", 1, "the file is UTF-32 (little-endian)"},
		{"UTF-16 little-endian without a mark", "v\x00e\x00r\x00:\x00 \x001\x00\n\x00", 1, "looks like UTF-16 (little-endian) without a byte order mark"},
		{"UTF-16 big-endian without a mark", "\x00v\x00e\x00r\x00:\x00 \x001\x00\n", 1, "looks like UTF-16 (big-endian) without a byte order mark"},
		{"invalid UTF-8 has line and column", "version: 1\n# caf\xe9 ok\n", 2, "line 2, column 6: byte 0xE9 is not valid UTF-8; save the file as UTF-8"},
		{"invalid UTF-8 after multi-byte text", "# é\xff\n", 1, "line 1, column 4: byte 0xFF"},
		{"bad comment policy", "version: 1\ncomment: always\n", 2, `comment: "always" is not one of on, off, on-failure`},
		{"comment as a boolean", "comment: true\n", 1, `comment must be a string, found true or false "true": the valid values are on, off or on-failure`},
		{"noncharacter", "version: 1\nphase_branch: \"a\uFFFEb\"\n", 2, `control character U+FFFE at column 17: YAML does not allow it in a file (remove it, or write it as the escape "\uFFFE" inside double quotes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Path, []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) {
				t.Fatalf("%T is not an ArtifactError: %v", err, err)
			}
			if ae.Path != Path {
				t.Errorf("path %q", ae.Path)
			}
			if tt.wantLine > 0 && ae.Line != tt.wantLine {
				t.Errorf("line %d, want %d (%v)", ae.Line, tt.wantLine, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
		})
	}
}

// TestParseComment: the comment key takes on, off and on-failure, bare
// (YAML 1.2 reads on and off as strings), and defaults to on-failure.
func TestParseComment(t *testing.T) {
	for yaml, want := range map[string]gates.CommentPolicy{
		"":                      gates.CommentOnFailure,
		"version: 1\n":          gates.CommentOnFailure,
		"comment: on\n":         gates.CommentOn,
		"comment: off\n":        gates.CommentOff,
		"comment: \"off\"\n":    gates.CommentOff,
		"comment: on-failure\n": gates.CommentOnFailure,
	} {
		c, err := Parse(Path, []byte(yaml))
		if err != nil {
			t.Errorf("%q: %v", yaml, err)
			continue
		}
		if c.Comment != want {
			t.Errorf("%q: comment %q, want %q", yaml, c.Comment, want)
		}
	}
}

func TestParseCommands(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       gates.CommandsConfig
		wantErr    string
	}{
		{"default", "", gates.CommandsConfig{MinPermission: gates.PermissionWrite}, ""},
		{"maintain", "commands:\n  min_permission: maintain\n", gates.CommandsConfig{MinPermission: gates.PermissionMaintain}, ""},
		{"admin and self approval", "commands:\n  min_permission: admin\n  allow_self_approval: true\n", gates.CommandsConfig{MinPermission: gates.PermissionAdmin, AllowSelfApproval: true}, ""},
		{"read is refused", "commands:\n  min_permission: read\n", gates.CommandsConfig{}, `commands.min_permission: "read" is not one of write, maintain, admin`},
		{"string for a bool", "commands:\n  allow_self_approval: \"yes\"\n", gates.CommandsConfig{}, "commands.allow_self_approval must be"},
		{"teams", "commands:\n  teams: [octo-org/maintainers, Octo-Org/release_team.v2]\n", gates.CommandsConfig{MinPermission: gates.PermissionWrite, Teams: []string{"octo-org/maintainers", "Octo-Org/release_team.v2"}}, ""},
		{"teams with maintain", "commands:\n  min_permission: maintain\n  teams:\n    - octo/core\n", gates.CommandsConfig{MinPermission: gates.PermissionMaintain, Teams: []string{"octo/core"}}, ""},
		{"team without org", "commands:\n  teams: [core]\n", gates.CommandsConfig{}, `.github/swarm-gate.yml: line 2, column 11: commands.teams[0]: "core" is not org/team-slug (e.g. octo-org/maintainers)`},
		{"team with @", "commands:\n  teams:\n    - \"@octo/core\"\n", gates.CommandsConfig{}, `line 3, column 7: commands.teams[0]: "@octo/core" starts with @; write the team as "octo/core"`},
		{"team slug upper case", "commands:\n  teams: [octo/Core-Team]\n", gates.CommandsConfig{}, `commands.teams[0]: team slugs are lower case; did you mean "octo/core-team"?`},
		{"team slug with a space", "commands:\n  teams: [octo/core team]\n", gates.CommandsConfig{}, `"core team" is not a team slug`},
		{"team path too deep", "commands:\n  teams: [octo/core/x]\n", gates.CommandsConfig{}, `is not org/team-slug`},
		{"bad org", "commands:\n  teams: [-octo/core]\n", gates.CommandsConfig{}, `"-octo" is not an organization login`},
		{"team twice", "commands:\n  teams: [octo/core, OCTO/core]\n", gates.CommandsConfig{}, `commands.teams[1]: "OCTO/core" is listed twice`},
		{"teams empty", "commands:\n  teams: []\n", gates.CommandsConfig{}, "commands.teams is empty"},
		{"teams a string", "commands:\n  teams: octo/core\n", gates.CommandsConfig{}, `line 2, column 10: commands.teams must be a list of teams as org/team-slug (e.g. [octo-org/maintainers]), found a string "octo/core"`},
		{"team a number", "commands:\n  teams: [7]\n", gates.CommandsConfig{}, `commands.teams[0] must be a string`},
		{"typo in teams", "commands:\n  temas: [octo/core]\n", gates.CommandsConfig{}, `unknown key "temas" in commands (known keys: allow_self_approval, min_permission, teams); did you mean "teams"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(Path, []byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Commands, tt.want) {
				t.Errorf("got %+v, want %+v", c.Commands, tt.want)
			}
		})
	}
}

func TestParseScope(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want gates.ScopeConfig
	}{
		{"defaults", "", gates.ScopeConfig{Lockfiles: true}},
		{"all keys", "scope:\n  extras: [dist/**, \"**/*.gen.go\", docs/*.md]\n  lockfiles: false\n  untouched_completed: fail\n  widened_by_pr: fail\n  not_declared: warn\n",
			gates.ScopeConfig{Extras: []string{"dist/**", "**/*.gen.go", "docs/*.md"}, FailUntouchedCompleted: true, FailWidenedByPR: true, WarnNotDeclared: true}},
		{"block list", "scope:\n  extras:\n    - go.work.sum\n    - gen/{a,b}/**\n", gates.ScopeConfig{Extras: []string{"go.work.sum", "gen/{a,b}/**"}, Lockfiles: true}},
		{"empty list", "scope:\n  extras: []\n", gates.ScopeConfig{Extras: []string{}, Lockfiles: true}},
		{"a folder with a trailing slash", "scope:\n  extras: [dist/]\n", gates.ScopeConfig{Extras: []string{"dist"}, Lockfiles: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(Path, []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Scope, tt.want) {
				t.Errorf("got %+v, want %+v", c.Scope, tt.want)
			}
		})
	}
	bad := []struct{ name, yaml, msg string }{
		{"extras not a list", "scope:\n  extras: dist/**\n", "scope.extras must be a list"},
		{"invalid glob", "scope:\n  extras:\n    - \"dist/[\"\n", `scope.extras[0]: "dist/[" is not a valid glob pattern`},
		{"absolute", "scope:\n  extras: [/etc/**]\n", "must be relative"},
		{"dot-dot", "scope:\n  extras: [a/../b]\n", "must be relative"},
		{"dot segment", "scope:\n  extras: [dist/./x]\n", "must be relative"},
		{"trailing dot-dot", "scope:\n  extras: [dist/**/..]\n", "must be relative"},
		{"empty segment", "scope:\n  extras: [dist//x]\n", "must be relative"},
		{"backslash", "scope:\n  extras: ['a\\b']\n", "must be relative"},
		{"number item", "scope:\n  extras: [1]\n", "scope.extras[0] must be a string"},
		{"lockfiles as string", "scope:\n  lockfiles: \"yes\"\n", "scope.lockfiles must be true or false"},
		{"unknown key", "scope:\n  extra: [a]\n", `unknown key "extra" in scope`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Path, []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	t.Run("absent gives defaults", func(t *testing.T) {
		c, err := Load(fstest.MapFS{}, "base 1a2b3c4")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, gates.DefaultConfig()) {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("present names its commit", func(t *testing.T) {
		c, err := Load(fstest.MapFS{Path: {Data: []byte("plan_freeze:\n  approval: human\n")}}, "base 1a2b3c4")
		if err != nil {
			t.Fatal(err)
		}
		if c.PlanFreeze.Approval != gates.ApprovalHuman || c.Source != Path+" at base 1a2b3c4" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run(".yaml spelling is refused, not ignored", func(t *testing.T) {
		_, err := Load(fstest.MapFS{".github/swarm-gate.yaml": {Data: []byte("version: 1\n")}}, "base x")
		if err == nil || !strings.Contains(err.Error(), "rename the file") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run(".yaml beside .yml is named, not silently ignored", func(t *testing.T) {
		c, err := Load(fstest.MapFS{Path: {Data: []byte("plan_freeze:\n  approval: human\n")}, AltPath: {Data: []byte("plan_freeze:\n  approval: any\n")}}, "base 1a2b3c4")
		if err != nil {
			t.Fatal(err)
		}
		if c.PlanFreeze.Approval != gates.ApprovalHuman || c.Source != Path+" at base 1a2b3c4; "+AltPath+" is there too and is not read: delete it" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Load(fstest.MapFS{Path + "/x": {Data: []byte("")}}, "base x")
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		big := strings.Repeat("# padding\n", MaxSize/10+1)
		_, err := Load(fstest.MapFS{Path: {Data: []byte(big)}}, "base x")
		if err == nil || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("error names the line", func(t *testing.T) {
		_, err := Load(fstest.MapFS{Path: {Data: []byte("version: 1\nplan_freeze:\n  approval: nobody\n")}}, "base x")
		if err == nil || !strings.HasPrefix(err.Error(), Path+": line 3, column 13: ") {
			t.Fatalf("got %v", err)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "version: 1\n", "plan_freeze:\n  approval: human\n  legacy_plans: allow\n", "a: &x [1]\nb: *x\n", "plan_freeze: {approval: any}\n", "- x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(Path, data)
		if err != nil {
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Path != Path {
				t.Fatalf("error %T %v does not name the file", err, err)
			}
			return
		}
		switch c.PlanFreeze.Approval {
		case gates.ApprovalAny, gates.ApprovalBaseAnchored, gates.ApprovalHuman:
		default:
			t.Fatalf("approval %q", c.PlanFreeze.Approval)
		}
	})
}

func TestParsePlaceholders(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want gates.PlaceholdersConfig
	}{
		{"defaults", "", gates.PlaceholdersConfig{}},
		{"all keys", "placeholders:\n  allow: [vendor/**, \"*.snap\"]\n  sentinels: [NOCHECK, \"TODO(owner)\"]\n  markdown_headings: ignore\n  disable: [placeholder/code-stub-return]\n",
			gates.PlaceholdersConfig{Allow: []string{"vendor/**", "*.snap"}, Sentinels: []string{"NOCHECK", "TODO(owner)"}, IgnoreMarkdownHeadings: true, Disable: []string{gates.RuleCodeStubReturn}}},
		{"explicit default", "placeholders:\n  markdown_headings: flag\n  prose: warn\n", gates.PlaceholdersConfig{}},
		{"prose fails", "placeholders:\n  prose: fail\n", gates.PlaceholdersConfig{FailProse: true}},
		{"empty lists", "placeholders:\n  allow: []\n  sentinels: []\n  disable: []\n", gates.PlaceholdersConfig{Allow: []string{}, Sentinels: []string{}, Disable: []string{}}},
		{"null section: every setting commented out", "placeholders:\n  # allow:\n  #   - vendor/**\n  # markdown_headings: ignore\nscope:\n  lockfiles: true\n", gates.PlaceholdersConfig{}},
		{"null section: last key", "version: 1\nplaceholders:\n", gates.PlaceholdersConfig{}},
		{"null section: tilde", "placeholders: ~\n", gates.PlaceholdersConfig{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(Path, []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Placeholders, tt.want) {
				t.Errorf("got %+v, want %+v", c.Placeholders, tt.want)
			}
		})
	}
	bad := []struct {
		name, yaml string
		line       int
		msg        string
	}{
		{"allow not a list", "placeholders:\n  allow: vendor/**\n", 2, "placeholders.allow must be a list of glob patterns"},
		{"invalid allow glob", "placeholders:\n  allow:\n    - \"a/[\"\n", 3, `placeholders.allow[0]: "a/[" is not a valid glob pattern`},
		{"absolute allow glob", "placeholders:\n  allow: [/etc/**]\n", 2, "must be relative"},
		{"sentinels not a list", "placeholders:\n  sentinels: NOCHECK\n", 2, "placeholders.sentinels must be a list of strings"},
		{"blank sentinel", "placeholders:\n  sentinels:\n    - ok\n    - \"  \"\n", 4, "placeholders.sentinels[1] is blank"},
		{"sentinel too long", "placeholders:\n  sentinels: [" + strings.Repeat("x", 101) + "]\n", 2, "could never match"},
		{"sentinel not a string", "placeholders:\n  sentinels: [12]\n", 2, "placeholders.sentinels[0] must be a string"},
		{"bad headings value", "placeholders:\n  markdown_headings: skip\n", 2, `placeholders.markdown_headings: "skip" is not one of flag, ignore`},
		{"unknown rule", "placeholders:\n  disable: [placeholder/comment-todos]\n", 2, `"placeholder/comment-todos" is not a placeholder rule (known: placeholder/comment-todo,`},
		{"suppression rule", "placeholders:\n  disable:\n    - placeholder/suppression-without-reason\n", 3, "cannot be turned off"},
		{"unknown key", "placeholders:\n  allows: [a]\n", 2, `unknown key "allows" in placeholders (known keys: allow, disable, markdown_headings, prose, sentinels); did you mean "allow"?`},
		{"section is a list", "placeholders: [a]\n", 1, "placeholders must be a mapping"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Path, []byte(tt.yaml))
			var ae *swarm.ArtifactError
			if !errors.As(err, &ae) || ae.Line != tt.line || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want line %d and %q", err, tt.line, tt.msg)
			}
		})
	}
}

// TestStrictPresetInREADME: docs/policy.md's strict preset (issue 20 item
// 3) parses and sets what it says, and the README shows the same block.
func TestStrictPresetInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "**The strict preset**")
	if !ok {
		t.Fatal("docs/policy.md has no strict preset")
	}
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the strict preset's YAML block is not closed")
	}
	if top, err := os.ReadFile("../../README.md"); err != nil || !strings.Contains(string(top), strings.TrimPrefix(block, "version: 1\n")) {
		t.Errorf("README.md does not show docs/policy.md's strict preset (%v)", err)
	}
	cfg, err := Parse(".github/swarm-gate.yml", []byte(block))
	if err != nil {
		t.Fatalf("the README's strict preset does not parse: %v\n%s", err, block)
	}
	if cfg.PlanFreeze.Approval != gates.ApprovalBaseAnchored || !cfg.Scope.FailWidenedByPR || cfg.Scope.WarnSelfApprovedWidening || !cfg.Limits.ScanNewGenerated {
		t.Errorf("strict preset parsed as %+v %+v", cfg.PlanFreeze, cfg.Scope)
	}
}

// TestParseReportsEveryError: a file with several mistakes names each one,
// in file order, with line and column, and errors.As still opens the first.
func TestParseReportsEveryError(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // "line:column: message prefix"
	}{
		{"three mistakes in three sections",
			"version: 1\nplan_freeze:\n  approval: humans\nscope:\n  extras: [../x]\nsast:\n  severity_treshold: high\n",
			[]string{
				`3:13: plan_freeze.approval: "humans" is not one of`,
				`5:12: scope.extras[0]: "../x" must be relative`,
				`7:3: unknown key "severity_treshold" in sast`,
			}},
		{"a duplicate key does not hide what follows",
			"version: 1\nversion: 1\nplan_lint: yes\n",
			[]string{`2:1: "version" appears twice`, `3:12: plan_lint: "yes" is not one of`}},
		{"every bad item of one list",
			"scope:\n  extras: [\"\", /abs, ok/**]\n",
			[]string{`2:12: scope.extras[0] is empty`, `2:16: scope.extras[1]: "/abs" must be relative`}},
		{"one mistake is a plain ArtifactError",
			"drift: []\n",
			[]string{`1:8: drift must be a mapping`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(Path, []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			all := All(err)
			if len(all) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(all), len(tt.want), err)
			}
			for i, e := range all {
				got := fmt.Sprintf("%d:%d: %v", e.Line, e.Column, e.Err)
				if !strings.HasPrefix(got, tt.want[i]) {
					t.Errorf("error %d = %q, want prefix %q", i, got, tt.want[i])
				}
			}
			var first *swarm.ArtifactError
			if !errors.As(err, &first) || first != all[0] {
				t.Errorf("errors.As gives %v, want the first error", first)
			}
			if len(all) > 1 && !strings.HasPrefix(err.Error(), fmt.Sprintf("%d problems:\n", len(all))) {
				t.Errorf("message %q does not count the problems", err)
			}
		})
	}
}

package actionrun

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/actions"
)

func TestSettings(t *testing.T) {
	const ws = "/github/workspace"
	names := func(s *Settings) []string {
		var out []string
		for _, g := range s.Gates {
			out = append(out, g.Name())
		}
		return out
	}
	cases := []struct {
		name      string
		inputs    map[string]string // INPUT_* by input name
		overrides map[string]string
		check     func(t *testing.T, s *Settings)
		wantErr   string
	}{
		{name: "defaults", check: func(t *testing.T, s *Settings) {
			if s.Mode != ModeAuto || s.FailOn != FailOnFailure || s.Phase != 0 || s.ReportDir != DefaultReportDir || s.Config != "" || len(s.Gates) != 8 {
				t.Errorf("%+v", s)
			}
		}},
		{name: "inputs", inputs: map[string]string{"mode": "Check", "phase": "3", "fail-on": "never", "config": "./policy//swarm.yml",
			"sarif": "gosec.sarif,\n out/semgrep.sarif\n", "checks": "scope, swarm/sast", "report-dir": "out/sg/"},
			check: func(t *testing.T, s *Settings) {
				if s.Mode != ModeCheck || s.Phase != 3 || s.FailOn != FailOnNever || s.Config != "policy/swarm.yml" || s.ReportDir != "out/sg" {
					t.Errorf("%+v", s)
				}
				if want := []string{ws + "/gosec.sarif", ws + "/out/semgrep.sarif"}; !reflect.DeepEqual(s.SARIF, want) {
					t.Errorf("sarif %v", s.SARIF)
				}
				if got := names(s); !reflect.DeepEqual(got, []string{"swarm/scope", "swarm/sast"}) {
					t.Errorf("gates %v", got)
				}
			}},
		{name: "flags win over inputs", inputs: map[string]string{"mode": "check", "phase": "x"}, overrides: map[string]string{"mode": "publish", "phase": "auto", "report": "fork/report.json"},
			check: func(t *testing.T, s *Settings) {
				if s.Mode != ModePublish || s.Phase != 0 || s.Report != ws+"/fork/report.json" {
					t.Errorf("%+v", s)
				}
			}},
		{name: "phase-wrap on demand", inputs: map[string]string{"checks": "phase-wrap"}, check: func(t *testing.T, s *Settings) {
			if got := names(s); !reflect.DeepEqual(got, []string{"swarm/phase-wrap"}) {
				t.Errorf("gates %v", got)
			}
		}},
		{name: "report-timeout", inputs: map[string]string{"report-timeout": "90s"}, check: func(t *testing.T, s *Settings) {
			if s.ReportTimeout != 90*time.Second {
				t.Errorf("report-timeout %s", s.ReportTimeout)
			}
		}},
		{name: "report-timeout default", check: func(t *testing.T, s *Settings) {
			if s.ReportTimeout != DefaultReportTimeout {
				t.Errorf("report-timeout %s", s.ReportTimeout)
			}
		}},
		{name: "report-timeout under 1s", inputs: map[string]string{"report-timeout": "500ms"}, wantErr: `input report-timeout: "500ms" is not a duration from 1s to 14m`},
		{name: "report-timeout over 14m", inputs: map[string]string{"report-timeout": "15m"}, wantErr: `input report-timeout: "15m" is not a duration from 1s to 14m`},
		{name: "report-timeout without a unit", inputs: map[string]string{"report-timeout": "300"}, wantErr: `input report-timeout: "300" is not a duration`},
		{name: "bad mode", inputs: map[string]string{"mode": "verify"}, wantErr: `input mode: "verify" is not one of`},
		{name: "bad fail-on", inputs: map[string]string{"fail-on": "error"}, wantErr: `input fail-on: "error" is not failure or never`},
		{name: "phase 0", inputs: map[string]string{"phase": "0"}, wantErr: `input phase: "0" is not a phase number`},
		{name: "absolute config", inputs: map[string]string{"config": "/etc/swarm.yml"}, wantErr: "input config: \"/etc/swarm.yml\" is absolute"},
		{name: "config outside", inputs: map[string]string{"config": "../x.yml"}, wantErr: "input config: \"../x.yml\" is not a path inside the repository"},
		{name: "report dir is the workspace", inputs: map[string]string{"report-dir": "."}, wantErr: "input report-dir"},
		{name: "sarif outside the workspace", inputs: map[string]string{"sarif": "../../etc/x.sarif"}, wantErr: "input sarif: \"../../etc/x.sarif\" is outside the workspace"},
		{name: "report outside the workspace", overrides: map[string]string{"report": "/tmp/report.json"}, wantErr: "input report: \"/tmp/report.json\" is outside the workspace"},
		{name: "unknown check", inputs: map[string]string{"checks": "scope,lint"}, wantErr: `input checks: unknown check "swarm/lint"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{}
			for k, v := range tc.inputs {
				vars[actions.InputVar(k)] = v
			}
			r := &Runner{Env: actions.NewEnv(actions.MapLookup(vars)), Overrides: tc.overrides}
			s, err := r.settings(ws)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

package main

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(mod string, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: mod}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-30T09:00:00Z"}, {Key: "vcs.modified", Value: modified}}}
	}
	cases := []struct {
		name                string
		version, commit, at string
		info                *debug.BuildInfo
		want                string
	}{
		{"ldflags win", "v1.2.3", rev, "2026-12-01T10:00:00Z", stamped("v0.0.1", "false"), "swarm-gate v1.2.3 (commit 0123456789ab, built 2026-12-01T10:00:00Z)"},
		{"go install …@v1.4.0", "dev", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "swarm-gate v1.4.0"},
		{"go build in a clean tree", "dev", "", "", stamped("(devel)", "false"), "swarm-gate dev (commit 0123456789ab, built 2026-11-30T09:00:00Z)"},
		{"go build in a modified tree", "dev", "", "", stamped("(devel)", "true"), "swarm-gate dev (commit 0123456789ab-dirty, built 2026-11-30T09:00:00Z)"},
		{"no build info", "dev", "", "", nil, "swarm-gate dev"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
			version, commit, date = resolveVersion(c.version, c.commit, c.at, c.info)
			if got := versionLine(); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
}

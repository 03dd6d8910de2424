package main

import (
	"fmt"
	"runtime/debug"
)

// Set at build time by the release: -ldflags "-X main.version=v1.2.3
// -X main.commit=<sha> -X main.date=<RFC 3339>". Without them (go build,
// go install …@vX), resolveVersion fills them from the build info.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

func init() {
	info, _ := debug.ReadBuildInfo()
	version, commit, date = resolveVersion(version, commit, date, info)
}

// resolveVersion returns the version, commit and build date to report:
// the linker's values when set, else the module version go install
// records (v1.2.3; "(devel)" for a build in the source tree stays "dev")
// and the VCS revision and commit time go build stamps, the revision
// suffixed "-dirty" for a build from a modified tree.
func resolveVersion(version, commit, date string, info *debug.BuildInfo) (string, string, string) {
	if info == nil {
		return version, commit, date
	}
	if version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		version = info.Main.Version
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if commit == "" && rev != "" {
		commit = rev
		if dirty {
			commit += "-dirty"
		}
	}
	if date == "" {
		date = at
	}
	return version, commit, date
}

// versionLine is what `swarm-gate version` prints: "swarm-gate v1.2.3
// (commit 0123456789ab, built 2026-12-01T10:00:00Z)", the parts that are
// known.
func versionLine() string {
	s := "swarm-gate " + version
	switch {
	case commit != "" && date != "":
		return fmt.Sprintf("%s (commit %s, built %s)", s, shortCommit(commit), date)
	case commit != "":
		return fmt.Sprintf("%s (commit %s)", s, shortCommit(commit))
	case date != "":
		return fmt.Sprintf("%s (built %s)", s, date)
	}
	return s
}

// shortCommit keeps 12 hex digits of a revision and its "-dirty" suffix.
func shortCommit(c string) string {
	suffix := ""
	if len(c) > 6 && c[len(c)-6:] == "-dirty" {
		c, suffix = c[:len(c)-6], "-dirty"
	}
	if len(c) > 12 {
		c = c[:12]
	}
	return c + suffix
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReleaseSnapshot runs scripts/release-snapshot: goreleaser check, a
// snapshot release into dist/ (six archives, checksums.txt) and the checks
// on what it built. The script installs GoReleaser through the module proxy
// on its first run (minutes; then it is cached), so the test runs only when
// SWARM_GATE_RELEASE_TEST=1, as scripts/test sets it.
func TestReleaseSnapshot(t *testing.T) {
	if os.Getenv("SWARM_GATE_RELEASE_TEST") != "1" {
		t.Skip("skipping: set SWARM_GATE_RELEASE_TEST=1 to build a snapshot release with GoReleaser (scripts/test does; the first run installs GoReleaser through the Go module proxy)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipping: no git (GoReleaser reads the commit from git)")
	}
	if _, err := os.Stat("../../.git"); err != nil {
		t.Skip("skipping: not a git checkout (GoReleaser needs one): ", err)
	}
	cmd := exec.Command("bash", "../../scripts/release-snapshot")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/release-snapshot: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(lines[len(lines)-1])
}

// fromLine matches a Dockerfile's FROM of a registry image.
var fromLine = regexp.MustCompile(`(?m)^FROM ([^ \n]+)`)

// TestDockerfilesAgree: the source build (Dockerfile) and the release
// images (Dockerfile.release) have the same runtime: the same base image,
// pinned by digest, the same RUN lines, the App stage's non-root user and
// HEALTHCHECK, and the Action's stage last (the default target).
func TestDockerfilesAgree(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	src, rel := read("Dockerfile"), read("Dockerfile.release")
	pinned := regexp.MustCompile(`^[a-z0-9./-]+:[0-9A-Za-z.-]+@sha256:[0-9a-f]{64}$`)
	bases := func(name, text string) []string {
		var out []string
		for _, m := range fromLine.FindAllStringSubmatch(text, -1) {
			ref := m[1]
			if ref == "runtime" {
				continue
			}
			if !pinned.MatchString(ref) {
				t.Errorf("%s: FROM %s is not pinned as tag@sha256:digest", name, ref)
			}
			out = append(out, ref)
		}
		return out
	}
	srcBases, relBases := bases("Dockerfile", src), bases("Dockerfile.release", rel)
	if len(relBases) != 1 || len(srcBases) != 2 || srcBases[1] != relBases[0] {
		t.Errorf("runtime base images differ: Dockerfile %v, Dockerfile.release %v (want a build image and the release's runtime image)", srcBases, relBases)
	}
	stage := func(text, name string) string {
		i := strings.Index(text, " AS "+name+"\n")
		if i < 0 {
			t.Fatalf("no stage %s", name)
		}
		rest := text[i:]
		if j := strings.Index(rest[1:], "\nFROM "); j >= 0 {
			rest = rest[:j+1]
		}
		return rest
	}
	runs := regexp.MustCompile(`(?ms)^(RUN|USER|EXPOSE|HEALTHCHECK|CMD|ENTRYPOINT) .*?[^\\]$`)
	for _, name := range []string{"runtime", "app"} {
		a := runs.FindAllString(stage(src, name), -1)
		b := runs.FindAllString(stage(rel, name), -1)
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("stage %s differs:\nDockerfile:\n%s\nDockerfile.release:\n%s", name, strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
	}
	app := stage(src, "app")
	for _, want := range []string{"USER 10001:10001", "HEALTHCHECK ", "/healthz", `CMD ["serve"]`} {
		if !strings.Contains(app, want) {
			t.Errorf("Dockerfile's app stage has no %q", want)
		}
	}
	for name, text := range map[string]string{"Dockerfile": src, "Dockerfile.release": rel} {
		froms := fromLine.FindAllStringIndex(text, -1)
		last := text[froms[len(froms)-1][0]:]
		if !strings.HasPrefix(last, "FROM runtime AS action\n") {
			t.Errorf("%s: the last stage is not `FROM runtime AS action` (the default target is the Action's image)", name)
		}
	}
	if !strings.Contains(src, "GOTOOLCHAIN=auto") {
		t.Error("Dockerfile's build stage does not set GOTOOLCHAIN=auto (the official image's local would ignore go.mod's toolchain)")
	}
}

// TestPinActionImage: scripts/pin-action-image turns action.yml's
// `image: Dockerfile` into a docker:// image by digest, which stays a docker
// action with its post step, and refuses a tag or a short digest.
func TestPinActionImage(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^  image: Dockerfile$`).Match(data) {
		t.Fatal("action.yml on the default branch should say `image: Dockerfile` (the release workflow pins the digest on the release commit)")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "action.yml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ref := "ghcr.io/swarm-gate/swarm-gate@sha256:" + strings.Repeat("0123456789abcdef", 4)
	for _, bad := range []string{"ghcr.io/swarm-gate/swarm-gate:v1.2.3", "ghcr.io/swarm-gate/swarm-gate@sha256:abc", "Dockerfile"} {
		if out, err := exec.Command("bash", "../../scripts/pin-action-image", bad, file).CombinedOutput(); err == nil {
			t.Errorf("pin-action-image %s: no error (%s)", bad, out)
		}
	}
	if out, err := exec.Command("bash", "../../scripts/pin-action-image", ref, file).CombinedOutput(); err != nil {
		t.Fatalf("pin-action-image: %v\n%s", err, out)
	}
	pinned, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(data), "  image: Dockerfile\n", "  image: docker://"+ref+"\n", 1)
	if string(pinned) != want {
		t.Errorf("pin-action-image changed more than the image line:\n%s", pinned)
	}
	var meta struct {
		Runs struct {
			Using, Image   string
			PostEntrypoint string `yaml:"post-entrypoint"`
		}
	}
	if err := yaml.Unmarshal(pinned, &meta); err != nil {
		t.Fatalf("the pinned action.yml does not parse: %v", err)
	}
	if meta.Runs.Using != "docker" || meta.Runs.PostEntrypoint == "" || meta.Runs.Image != "docker://"+ref {
		t.Errorf("runs.image = %q", meta.Runs.Image)
	}
}

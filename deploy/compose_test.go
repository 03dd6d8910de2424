package deploy

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// composeFile is the part of the Compose specification
// (compose-spec.io) that compose/docker-compose.yml uses; it is decoded
// strictly, so a misspelt key, or one put at the wrong level, fails.
type composeFile struct {
	Name     string                    `json:"name"`
	Services map[string]composeService `json:"services"`
	Secrets  map[string]struct {
		File string `json:"file"`
	} `json:"secrets"`
}

type composeService struct {
	Image           string            `json:"image"`
	Command         []string          `json:"command"`
	Restart         string            `json:"restart"`
	ReadOnly        bool              `json:"read_only"`
	Tmpfs           []string          `json:"tmpfs"`
	CapDrop         []string          `json:"cap_drop"`
	SecurityOpt     []string          `json:"security_opt"`
	Environment     map[string]string `json:"environment"`
	Secrets         []string          `json:"secrets"`
	Ports           []string          `json:"ports"`
	StopGracePeriod string            `json:"stop_grace_period"`
	Logging         struct {
		Driver  string            `json:"driver"`
		Options map[string]string `json:"options"`
	} `json:"logging"`
}

func TestComposeFile(t *testing.T) {
	data, err := os.ReadFile("compose/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		t.Fatalf("compose/docker-compose.yml: %v", err)
	}
	s, ok := f.Services["swarm-gate"]
	if !ok || len(f.Services) != 1 {
		t.Fatalf("services %v, want swarm-gate only", f.Services)
	}
	if !strings.HasPrefix(s.Image, "ghcr.io/swarm-gate/swarm-gate-app:${SWARM_GATE_VERSION:?") {
		t.Errorf("image %q, want the App's release image, its tag required", s.Image)
	}
	if !slices.Equal(s.Command, []string{"serve"}) || !s.ReadOnly || !slices.Equal(s.CapDrop, []string{"ALL"}) {
		t.Errorf("command %q, read_only %v, cap_drop %v", s.Command, s.ReadOnly, s.CapDrop)
	}
	if len(s.Tmpfs) != 1 || !strings.HasPrefix(s.Tmpfs[0], "/tmp:") || s.Environment["TMPDIR"] != "/tmp" {
		t.Errorf("tmpfs %q, TMPDIR %q: the clones need a writable /tmp", s.Tmpfs, s.Environment["TMPDIR"])
	}
	// The secret and the App id are required, and never written here.
	for _, name := range []string{"SWARM_GATE_APP_ID", "SWARM_GATE_WEBHOOK_SECRET"} {
		if v := s.Environment[name]; !regexp.MustCompile(`^\$\{` + name + `:\?[^}]*\}$`).MatchString(v) {
			t.Errorf("%s = %q, want ${%s:?...} (required, from .env)", name, v, name)
		}
	}
	if s.Environment["SWARM_GATE_PRIVATE_KEY_PATH"] != "/run/secrets/swarm-gate-private-key" || !slices.Equal(s.Secrets, []string{"swarm-gate-private-key"}) ||
		f.Secrets["swarm-gate-private-key"].File == "" {
		t.Errorf("the private key is not the compose secret swarm-gate-private-key: %q, %q, %+v", s.Environment["SWARM_GATE_PRIVATE_KEY_PATH"], s.Secrets, f.Secrets)
	}
	if _, ok := s.Environment["SWARM_GATE_METRICS_LISTEN"]; ok {
		t.Error("metrics exposed by default")
	}
	if !slices.Equal(s.Ports, []string{"8080:8080"}) || s.StopGracePeriod != "35s" {
		t.Errorf("ports %q, stop_grace_period %q", s.Ports, s.StopGracePeriod)
	}
}

package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

const chartDir = "helm/swarm-gate"

// serviceMonitor is the part of the Prometheus Operator's ServiceMonitor
// (monitoring.coreos.com/v1, a CRD: no Go type in k8s.io/api) the chart
// writes; decoded strictly, a field the chart sets that is not here fails.
type serviceMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Endpoints []struct {
			Port              string                    `json:"port"`
			Path              string                    `json:"path"`
			Interval          string                    `json:"interval"`
			ScrapeTimeout     string                    `json:"scrapeTimeout"`
			BearerTokenSecret *corev1.SecretKeySelector `json:"bearerTokenSecret,omitempty"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// rendered is one rendering of the chart, every manifest decoded.
type rendered struct {
	kinds          []string // sorted
	deployment     *appsv1.Deployment
	service        *corev1.Service
	pdb            *policyv1.PodDisruptionBudget
	ingress        *networkingv1.Ingress
	hpa            *autoscalingv2.HorizontalPodAutoscaler
	serviceMonitor *serviceMonitor
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return ch
}

func readValues(t *testing.T, file string) map[string]any {
	t.Helper()
	if file == "" {
		return map[string]any{}
	}
	v, err := chartutil.ReadValuesFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return v.AsMap()
}

// render renders the chart as `helm install swarm-gate` would with the
// values file (none: the defaults), and decodes every manifest strictly
// (unknown or duplicate fields are errors) into its API type.
func render(t *testing.T, valuesFile string, set map[string]any) *rendered {
	t.Helper()
	ch := loadChart(t)
	vals := readValues(t, valuesFile)
	for k, v := range set {
		vals[k] = v
	}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "swarm-gate", Namespace: "gate", IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	// Strict: a template reading a value that does not exist fails.
	files, err := engine.Engine{Strict: true}.Render(ch, rv)
	if err != nil {
		t.Fatalf("rendering: %v", err)
	}
	r := &rendered{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") {
			continue // NOTES.txt, _helpers.tpl
		}
		for _, doc := range releaseutil.SplitManifests(files[name]) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
			var dst any
			switch head.APIVersion + " " + head.Kind {
			case "apps/v1 Deployment":
				r.deployment = &appsv1.Deployment{}
				dst = r.deployment
			case "v1 Service":
				r.service = &corev1.Service{}
				dst = r.service
			case "policy/v1 PodDisruptionBudget":
				r.pdb = &policyv1.PodDisruptionBudget{}
				dst = r.pdb
			case "networking.k8s.io/v1 Ingress":
				r.ingress = &networkingv1.Ingress{}
				dst = r.ingress
			case "autoscaling/v2 HorizontalPodAutoscaler":
				r.hpa = &autoscalingv2.HorizontalPodAutoscaler{}
				dst = r.hpa
			case "monitoring.coreos.com/v1 ServiceMonitor":
				r.serviceMonitor = &serviceMonitor{}
				dst = r.serviceMonitor
			default:
				t.Fatalf("%s: unexpected %s %s", name, head.APIVersion, head.Kind)
			}
			if slices.Contains(r.kinds, head.Kind) {
				t.Fatalf("%s: a second %s", name, head.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), dst); err != nil {
				t.Fatalf("%s: not a valid %s: %v\n%s", name, head.Kind, err, doc)
			}
			r.kinds = append(r.kinds, head.Kind)
		}
	}
	sort.Strings(r.kinds)
	if r.deployment == nil || r.service == nil {
		t.Fatalf("no Deployment or Service in %v", r.kinds)
	}
	return r
}

func env(t *testing.T, c corev1.Container, name string) *corev1.EnvVar {
	t.Helper()
	var found *corev1.EnvVar
	for i, e := range c.Env {
		if e.Name == name {
			if found != nil {
				t.Errorf("%s is set twice", name)
			}
			found = &c.Env[i]
		}
	}
	return found
}

func wantEnvValue(t *testing.T, c corev1.Container, name, want string) {
	t.Helper()
	e := env(t, c, name)
	switch {
	case e == nil:
		t.Errorf("%s not set", name)
	case e.ValueFrom != nil || e.Value != want:
		t.Errorf("%s = %q (from %v), want %q", name, e.Value, e.ValueFrom, want)
	}
}

func wantEnvSecret(t *testing.T, c corev1.Container, name, secret, key string) {
	t.Helper()
	e := env(t, c, name)
	if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		t.Errorf("%s is not taken from a Secret: %+v", name, e)
		return
	}
	ref := e.ValueFrom.SecretKeyRef
	if ref.Name != secret || ref.Key != key || (ref.Optional != nil && *ref.Optional) {
		t.Errorf("%s from Secret %q key %q (optional %v), want %q key %q", name, ref.Name, ref.Key, ref.Optional, secret, key)
	}
}

func port(c corev1.Container, name string) *corev1.ContainerPort {
	for i, p := range c.Ports {
		if p.Name == name {
			return &c.Ports[i]
		}
	}
	return nil
}

// checkCommon checks what holds for every values file: security, probes,
// the key and secret from the Secret, the work dir, the selectors.
func checkCommon(t *testing.T, r *rendered, secret, keyKey, webhookKey string) corev1.Container {
	t.Helper()
	d := r.deployment
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("args %q, want [serve]", c.Args)
	}
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 10001 || psc.FSGroup == nil || *psc.FSGroup != 10001 {
		t.Errorf("pod security context %+v: want runAsNonRoot, runAsUser 10001 (the image's user), fsGroup 10001", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v: want readOnlyRootFilesystem, runAsNonRoot, no privilege escalation, every capability dropped", sc)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the service account token is mounted: the server never calls the Kubernetes API")
	}
	http := port(c, "http")
	if http == nil || http.ContainerPort != 8080 {
		t.Errorf("port http %+v, want 8080", http)
	}
	wantEnvValue(t, c, "SWARM_GATE_LISTEN", ":8080")
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "http" {
			t.Errorf("%s probe %+v, want GET %s on port http", p.name, p.probe, p.path)
		}
	}
	// Resources: requested, so that the scheduler and the HPA can count.
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Resources.Requests[res]; !ok || q.IsZero() {
			t.Errorf("no %s request", res)
		}
		if q, ok := c.Resources.Limits[res]; !ok || q.Cmp(c.Resources.Requests[res]) < 0 {
			t.Errorf("%s limit %v below its request", res, q)
		}
	}
	// The private key: a file from the Secret, mounted read-only.
	wantEnvValue(t, c, "SWARM_GATE_PRIVATE_KEY_PATH", "/var/run/secrets/swarm-gate/private-key.pem")
	if env(t, c, "SWARM_GATE_PRIVATE_KEY") != nil {
		t.Error("SWARM_GATE_PRIVATE_KEY set as well as the key file")
	}
	wantEnvSecret(t, c, "SWARM_GATE_WEBHOOK_SECRET", secret, webhookKey)
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
		if _, ok := vols[m.Name]; !ok {
			t.Errorf("mount %s: no volume %q", m.MountPath, m.Name)
		}
	}
	km, ok := mounts["/var/run/secrets/swarm-gate"]
	if !ok || !km.ReadOnly {
		t.Errorf("the key's mount %+v, want read-only at /var/run/secrets/swarm-gate", km)
	}
	kv := vols[km.Name].Secret
	if kv == nil || kv.SecretName != secret || len(kv.Items) != 1 || kv.Items[0].Key != keyKey || kv.Items[0].Path != "private-key.pem" ||
		kv.DefaultMode == nil || *kv.DefaultMode != 0o440 {
		t.Errorf("the key's volume %+v, want Secret %q item %q as private-key.pem, mode 0440", kv, secret, keyKey)
	}
	// The root file system is read-only: the clones go to an emptyDir.
	tm, ok := mounts["/tmp"]
	if !ok || tm.ReadOnly || vols[tm.Name].EmptyDir == nil {
		t.Errorf("/tmp is not a writable emptyDir: %+v", tm)
	}
	wantEnvValue(t, c, "TMPDIR", "/tmp")
	if e := env(t, c, "SWARM_GATE_WORK_DIR"); e != nil && !strings.HasPrefix(e.Value, "/tmp") {
		t.Errorf("SWARM_GATE_WORK_DIR %q is outside the emptyDir", e.Value)
	}
	// SIGTERM: the shutdown delay and timeout, plus 10 s, before SIGKILL.
	var grace time.Duration
	for _, name := range []string{"SWARM_GATE_SHUTDOWN_DELAY", "SWARM_GATE_SHUTDOWN_TIMEOUT"} {
		e := env(t, c, name)
		if e == nil {
			t.Fatalf("%s not set", name)
		}
		d, err := time.ParseDuration(e.Value)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		grace += d
	}
	if tg := pod.TerminationGracePeriodSeconds; tg == nil || time.Duration(*tg)*time.Second < grace+10*time.Second {
		t.Errorf("terminationGracePeriodSeconds %v: less than the shutdown delay and timeout (%v) plus 10 s", tg, grace)
	}
	// Selectors: the Deployment's, the Service's and the PDB's pick the pods.
	podLabels := d.Spec.Template.Labels
	matches := func(what string, sel map[string]string) {
		if len(sel) == 0 {
			t.Errorf("%s: empty selector", what)
		}
		for k, v := range sel {
			if podLabels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods do not carry (%v)", what, k, v, podLabels)
			}
		}
	}
	matches("Deployment", d.Spec.Selector.MatchLabels)
	matches("Service", r.service.Spec.Selector)
	if r.pdb == nil {
		t.Error("no PodDisruptionBudget")
	} else {
		matches("PodDisruptionBudget", r.pdb.Spec.Selector.MatchLabels)
	}
	sp := servicePort(r.service, "http")
	if sp == nil || sp.TargetPort.String() != "http" {
		t.Errorf("Service port http %+v, want targetPort http", sp)
	}
	checkServeReads(t, c)
	return c
}

func servicePort(s *corev1.Service, name string) *corev1.ServicePort {
	for i, p := range s.Spec.Ports {
		if p.Name == name {
			return &s.Spec.Ports[i]
		}
	}
	return nil
}

// checkServeReads checks that every SWARM_GATE_ variable the chart sets is
// one of serve's settings (read from cmd/swarm-gate/serve.go).
func checkServeReads(t *testing.T, c corev1.Container) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "cmd", "swarm-gate", "serve.go"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(SWARM_GATE_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		known[m[1]] = true
	}
	for _, e := range c.Env {
		if strings.HasPrefix(e.Name, "SWARM_GATE_") && !known[e.Name] {
			t.Errorf("the chart sets %s, which serve does not read", e.Name)
		}
	}
}

func TestChartDefaults(t *testing.T) {
	ch := loadChart(t)
	r := render(t, "", nil)
	if want := []string{"Deployment", "PodDisruptionBudget", "Service"}; !slices.Equal(r.kinds, want) {
		t.Errorf("kinds %v, want %v (Ingress, HPA and ServiceMonitor only when enabled)", r.kinds, want)
	}
	if r.deployment.Spec.Replicas == nil || *r.deployment.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", r.deployment.Spec.Replicas)
	}
	c := checkCommon(t, r, "swarm-gate", "private-key.pem", "webhook-secret")
	if want := "ghcr.io/swarm-gate/swarm-gate-app:" + ch.Metadata.AppVersion; c.Image != want {
		t.Errorf("image %q, want %q", c.Image, want)
	}
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(ch.Metadata.AppVersion) {
		t.Errorf("appVersion %q is not a release tag vX.Y.Z (the image's tags)", ch.Metadata.AppVersion)
	}
	// The App id from the Secret when appId is empty.
	wantEnvSecret(t, c, "SWARM_GATE_APP_ID", "swarm-gate", "app-id")
	// Metrics stay on serve's default, loopback, unexposed.
	if e := env(t, c, "SWARM_GATE_METRICS_LISTEN"); e != nil {
		t.Errorf("SWARM_GATE_METRICS_LISTEN = %q by default; want serve's loopback default", e.Value)
	}
	if env(t, c, "SWARM_GATE_METRICS_TOKEN") != nil || port(c, "metrics") != nil || servicePort(r.service, "metrics") != nil {
		t.Error("metrics exposed by default")
	}
	wantEnvValue(t, c, "SWARM_GATE_RECONCILE", "1")
	wantEnvValue(t, c, "SWARM_GATE_RECONCILE_INTERVAL", "10m")
	wantEnvValue(t, c, "SWARM_GATE_RECONCILE_MIN_BUDGET", "500")
	if r.pdb.Spec.MinAvailable == nil || r.pdb.Spec.MinAvailable.IntValue() != 1 || r.pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PDB minAvailable %v maxUnavailable %v, want minAvailable 1", r.pdb.Spec.MinAvailable, r.pdb.Spec.MaxUnavailable)
	}
	tmp := r.deployment.Spec.Template.Spec.Volumes
	for _, v := range tmp {
		if v.EmptyDir != nil && (v.EmptyDir.Medium != corev1.StorageMediumMemory || v.EmptyDir.SizeLimit == nil) {
			t.Errorf("the work dir %+v: want a tmpfs with a size limit", v.EmptyDir)
		}
	}
}

func TestChartFullyEnabled(t *testing.T) {
	r := render(t, "testdata/full-values.yaml", nil)
	if want := []string{"Deployment", "HorizontalPodAutoscaler", "Ingress", "PodDisruptionBudget", "Service", "ServiceMonitor"}; !slices.Equal(r.kinds, want) {
		t.Errorf("kinds %v, want %v", r.kinds, want)
	}
	const secret = "swarm-gate-credentials"
	c := checkCommon(t, r, secret, "app.pem", "webhook")
	d := r.deployment
	if d.Spec.Replicas != nil {
		t.Errorf("replicas %d set while the HPA scales the Deployment", *d.Spec.Replicas)
	}
	if want := "ghcr.io/swarm-gate/swarm-gate-app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"; c.Image != want {
		t.Errorf("image %q, want %q", c.Image, want)
	}
	wantEnvValue(t, c, "SWARM_GATE_APP_ID", "123456")
	wantEnvValue(t, c, "SWARM_GATE_WORKERS", "32")
	wantEnvValue(t, c, "SWARM_GATE_REDELIVER_FAILED", "true")
	wantEnvValue(t, c, "SWARM_GATE_RECONCILE", "0")
	wantEnvValue(t, c, "GOGC", "200")
	// Metrics on the pod's address, with the token from the Secret.
	wantEnvValue(t, c, "SWARM_GATE_METRICS_LISTEN", "0.0.0.0:9100")
	wantEnvSecret(t, c, "SWARM_GATE_METRICS_TOKEN", secret, "metrics-token")
	if p := port(c, "metrics"); p == nil || p.ContainerPort != 9100 {
		t.Errorf("container port metrics %+v, want 9100", p)
	}
	if sp := servicePort(r.service, "metrics"); sp == nil || sp.Port != 9100 || sp.TargetPort.String() != "metrics" {
		t.Errorf("Service port metrics %+v, want 9100 to metrics", sp)
	}
	sm := r.serviceMonitor
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %+v, want 1", sm.Spec.Endpoints)
	}
	ep := sm.Spec.Endpoints[0]
	if ep.Port != "metrics" || ep.Path != "/metrics" || ep.Interval != "15s" {
		t.Errorf("ServiceMonitor endpoint %+v, want port metrics, /metrics, every 15s", ep)
	}
	if ep.BearerTokenSecret == nil || ep.BearerTokenSecret.Name != secret || ep.BearerTokenSecret.Key != "metrics-token" {
		t.Errorf("ServiceMonitor bearer token %+v, want Secret %q key metrics-token", ep.BearerTokenSecret, secret)
	}
	if sm.Metadata.Labels["release"] != "prometheus" {
		t.Errorf("ServiceMonitor labels %v: the extra label is missing", sm.Metadata.Labels)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		if r.service.Labels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%s, which the Service does not carry (%v)", k, v, r.service.Labels)
		}
	}
	// Ingress: /webhook to the Service's http port, with TLS.
	in := r.ingress
	if in.Spec.IngressClassName == nil || *in.Spec.IngressClassName != "nginx" || len(in.Spec.TLS) != 1 || len(in.Spec.Rules) != 1 {
		t.Fatalf("Ingress %+v", in.Spec)
	}
	paths := in.Spec.Rules[0].HTTP.Paths
	if len(paths) != 1 || paths[0].Path != "/webhook" || paths[0].PathType == nil || *paths[0].PathType != networkingv1.PathTypeExact ||
		paths[0].Backend.Service == nil || paths[0].Backend.Service.Name != r.service.Name || paths[0].Backend.Service.Port.Name != "http" {
		t.Errorf("Ingress paths %+v, want /webhook (Exact) to %s:http", paths, r.service.Name)
	}
	// HPA on CPU, scaling the Deployment.
	h := r.hpa
	if h.Spec.ScaleTargetRef.Kind != "Deployment" || h.Spec.ScaleTargetRef.Name != d.Name || h.Spec.MinReplicas == nil || *h.Spec.MinReplicas != 3 || h.Spec.MaxReplicas != 12 {
		t.Errorf("HPA %+v", h.Spec)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource == nil || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU ||
		h.Spec.Metrics[0].Resource.Target.AverageUtilization == nil || *h.Spec.Metrics[0].Resource.Target.AverageUtilization != 60 {
		t.Errorf("HPA metrics %+v, want CPU at 60%%", h.Spec.Metrics)
	}
	if r.pdb.Spec.MaxUnavailable == nil || r.pdb.Spec.MaxUnavailable.IntValue() != 1 || r.pdb.Spec.MinAvailable != nil {
		t.Errorf("PDB %+v, want maxUnavailable 1 only", r.pdb.Spec)
	}
}

// TestChartMetricsOnly: metrics.enabled without a ServiceMonitor exposes the
// port without a token, and renders no ServiceMonitor.
func TestChartMetricsOnly(t *testing.T) {
	r := render(t, "", map[string]any{"metrics": map[string]any{"enabled": true}})
	if want := []string{"Deployment", "PodDisruptionBudget", "Service"}; !slices.Equal(r.kinds, want) {
		t.Errorf("kinds %v, want %v", r.kinds, want)
	}
	c := checkCommon(t, r, "swarm-gate", "private-key.pem", "webhook-secret")
	wantEnvValue(t, c, "SWARM_GATE_METRICS_LISTEN", "0.0.0.0:9090")
	if env(t, c, "SWARM_GATE_METRICS_TOKEN") != nil {
		t.Error("a metrics token without secret.metricsTokenKey")
	}
	if servicePort(r.service, "metrics") == nil {
		t.Error("no Service port metrics")
	}
}

// TestChartLint runs helm lint's checks (the SDK's lint package) on the
// chart with the default and the fully-enabled values: no error.
func TestChartLint(t *testing.T) {
	for _, file := range []string{"", "testdata/full-values.yaml"} {
		t.Run(fmt.Sprintf("values=%q", file), func(t *testing.T) {
			l := lint.All(chartDir, readValues(t, file), "gate", true)
			for _, m := range l.Messages {
				if m.Severity >= support.ErrorSev {
					t.Errorf("lint: %s", m)
				} else {
					t.Logf("lint: %s", m)
				}
			}
			if l.HighestSeverity >= support.ErrorSev {
				t.Errorf("highest lint severity %d", l.HighestSeverity)
			}
		})
	}
}

// Behind the chart's Ingress every delivery comes from the ingress
// controller's address, one source: 16 slow unsigned requests through it
// would have every GitHub delivery answered 429. The per-source limits are
// lifted there (docs/app.md: "behind a proxy, set -1"), unless set.
func TestChartIngressLiftsPerSourceLimits(t *testing.T) {
	c := render(t, "", map[string]any{"ingress": map[string]any{"enabled": true}}).deployment.Spec.Template.Spec.Containers[0]
	wantEnvValue(t, c, "SWARM_GATE_MAX_PER_SOURCE", "-1")
	wantEnvValue(t, c, "SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE", "-1")
	c = render(t, "", map[string]any{"ingress": map[string]any{"enabled": true}, "intake": map[string]any{"maxPerSource": 8, "maxUnverifiedPerSource": 32}}).deployment.Spec.Template.Spec.Containers[0]
	wantEnvValue(t, c, "SWARM_GATE_MAX_PER_SOURCE", "8")
	wantEnvValue(t, c, "SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE", "32")
	c = render(t, "", nil).deployment.Spec.Template.Spec.Containers[0]
	if env(t, c, "SWARM_GATE_MAX_PER_SOURCE") != nil || env(t, c, "SWARM_GATE_MAX_UNVERIFIED_PER_SOURCE") != nil {
		t.Error("per-source limits set without an Ingress; want serve's defaults")
	}
}

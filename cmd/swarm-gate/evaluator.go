package main

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swarm-gate/swarm-gate/internal/app"
	"github.com/swarm-gate/swarm-gate/internal/evalproc"
	"github.com/swarm-gate/swarm-gate/webhook"
)

// evaluatorSubcommand is the hidden command that runs the evaluator child
// of `swarm-gate serve` with SWARM_GATE_EVALUATOR=process.
const evaluatorSubcommand = "serve-evaluator"

// evaluatorNice is added to the server's nice value for the evaluator
// child (Linux), so that the kernel runs the intake first.
const evaluatorNice = 10

// evaluatorInit is what the child needs to make its App, sent over its
// standard input (the key is a secret: never in its arguments or
// environment).
type evaluatorInit struct {
	AppID         int64  `json:"app_id"`
	PrivateKeyPEM string `json:"private_key_pem"`
	APIURL        string `json:"api_url"`
	WorkDir       string `json:"work_dir"`
	FetchDepth    int    `json:"fetch_depth"`
	BotLogin      string `json:"bot_login"`
	LogLevel      string `json:"log_level"`
}

// processEvaluator evaluates in the child and abandons in the server
// (Abandon runs at shutdown, when the child may be gone).
type processEvaluator struct {
	*evalproc.Evaluator
	parent *app.App
}

func (p processEvaluator) Abandon(ctx context.Context, job webhook.Job, reason string) {
	p.parent.Abandon(ctx, job, reason)
}

// secretEnv are the variables the child does not inherit: it gets the key
// over its input and needs neither the webhook secret nor the metrics
// token.
var secretEnv = []string{"SWARM_GATE_PRIVATE_KEY=", "SWARM_GATE_WEBHOOK_SECRET=", "SWARM_GATE_METRICS_TOKEN="}

// startProcessEvaluator starts the evaluator child (this binary's hidden
// evaluatorSubcommand) at nice +10. logOut is where the child's log
// records go, as they are.
func startProcessEvaluator(cfg *serveConfig, bot string, log *slog.Logger, logOut io.Writer, reg prometheus.Registerer) (*evalproc.Evaluator, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("SWARM_GATE_EVALUATOR=process: finding this program to run as the evaluator process: %w", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		secret := false
		for _, p := range secretEnv {
			secret = secret || strings.HasPrefix(kv, p)
		}
		if !secret {
			env = append(env, kv)
		}
	}
	level := "info"
	for name, l := range logLevels {
		if l == cfg.logLevel {
			level = name
		}
	}
	init := evaluatorInit{AppID: cfg.appID, APIURL: cfg.apiURL, WorkDir: cfg.workDir, FetchDepth: cfg.fetchDepth, BotLogin: bot, LogLevel: level,
		PrivateKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(cfg.privateKey)}))}
	return evalproc.Start(evalproc.Config{
		Command: func() *exec.Cmd {
			cmd := exec.Command(exe, evaluatorSubcommand)
			cmd.Env = env
			return cmd
		},
		Init: init, Nice: evaluatorNice, Logger: log, LogOutput: logOut, Registerer: reg,
	})
}

// runEvaluatorChild is the hidden evaluatorSubcommand: it serves the jobs
// of its parent `swarm-gate serve` on standard input and output until the
// input ends. Its log is JSON on stderr, each record with
// "process":"evaluator".
func runEvaluatorChild(stderr io.Writer) int {
	// Standard output carries the results: nothing else may write there.
	out := os.Stdout
	os.Stdout = os.Stderr
	setup := func(raw json.RawMessage) (webhook.Evaluator, prometheus.Gatherer, error) {
		var in evaluatorInit
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, nil, err
		}
		key, err := parseKey(in.PrivateKeyPEM)
		if err != nil {
			return nil, nil, err
		}
		level, ok := logLevels[in.LogLevel]
		if !ok {
			level = slog.LevelInfo
		}
		log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})).With("process", "evaluator")
		reg := prometheus.NewRegistry()
		a, err := app.New(app.Config{AppID: in.AppID, PrivateKey: key, APIURL: in.APIURL, Logger: log, Registerer: reg,
			Version: version, WorkDir: in.WorkDir, FetchDepth: in.FetchDepth, BotLogin: in.BotLogin})
		if err != nil {
			return nil, nil, err
		}
		return a, reg, nil
	}
	if err := evalproc.ServeChild(os.Stdin, out, setup); err != nil {
		fmt.Fprintf(stderr, "swarm-gate %s: %v\n", evaluatorSubcommand, err)
		return exitUsage
	}
	return 0
}

func parseKey(s string) (*rsa.PrivateKey, error) {
	b, _ := pem.Decode([]byte(s))
	if b == nil {
		return nil, errors.New("the init line's private key is not PEM")
	}
	return x509.ParsePKCS1PrivateKey(b.Bytes)
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swarm-gate/swarm-gate/internal/planhash"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// runPlanHash prints the plan id and both digests of a plan.json file read
// from disk, or from stdin when FILE is "-".
func runPlanHash(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("plan hash", args, stdout, stderr)
	format := fs.String("format", "text", "output format: text or json")
	canonical := fs.String("canonical", "", "also print the exact JSON text that is hashed: ledger or structure")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	var problem string
	switch {
	case len(pos) > 1:
		problem = fmt.Sprintf("one FILE at most, got %q", pos)
	case *format != "text" && *format != "json":
		problem = fmt.Sprintf("--format must be text or json, not %q", *format)
	case *canonical != "" && *canonical != "ledger" && *canonical != "structure":
		problem = fmt.Sprintf("--canonical must be ledger or structure, not %q", *canonical)
	}
	if problem != "" {
		fmt.Fprintf(stderr, "swarm-gate plan hash: %s\nusage: swarm-gate plan hash [--format text|json] [--canonical ledger|structure] [FILE|-]\n", problem)
		return exitUsage
	}
	file := filepath.FromSlash(swarm.PlanPath)
	if len(pos) == 1 {
		file = pos[0]
	}
	var data []byte
	if file == "-" {
		file = "(stdin)"
		data, err = io.ReadAll(io.LimitReader(stdin, swarm.MaxFileSize+1))
		switch {
		case err != nil:
		case len(data) > swarm.MaxFileSize:
			err = fmt.Errorf("standard input is over the %d-byte limit", swarm.MaxFileSize)
		case len(bytes.TrimSpace(data)) == 0:
			err = errors.New("standard input is empty: pipe a plan.json into it, or give its path")
		}
	} else {
		data, err = readLimited(file)
	}
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return exitError
	}
	plan, err := swarm.ParsePlan(file, data)
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return exitError
	}
	for _, d := range plan.DuplicateKeys {
		// The digests are the plugin's (last value wins), but the file is not
		// what the plugin wrote.
		fmt.Fprintf(stderr, "swarm-gate: warning: %s: %s appears twice (%s); the hashes use the last value, as the plugin's JSON.parse does, and the plugin never writes a key twice\n",
			file, d.Where(), duplicateLines(d))
	}
	if *format == "json" {
		out := map[string]string{"file": file, "plan_id": plan.ID(), "ledger_hash": plan.Digests.Ledger, "structure_hash": plan.Digests.Structure,
			"identity_hash": planhash.IdentityHash(plan.Swarm, plan.Title)}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitError
		}
	} else {
		fmt.Fprintf(stdout, "%s\n", file)
		fmt.Fprintf(stdout, "  plan id         %s\n", plan.ID())
		fmt.Fprintf(stdout, "  ledger hash     %s  (computePlanLedgerHash: what plan_hash_after records)\n", plan.Digests.Ledger)
		fmt.Fprintf(stdout, "  structure hash  %s  (computePlanStructureHash: what a plan-critic approval records)\n", plan.Digests.Structure)
	}
	if *canonical != "" {
		b, err := planhash.CanonicalJSON(plan.Value, *canonical == "ledger")
		if err != nil {
			fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "%s\n", b)
	}
	return 0
}

// readLimited reads a file from disk, refusing one over swarm.MaxFileSize
// before reading it.
func readLimited(name string) ([]byte, error) {
	info, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s not found: run in the repository root or give the path of a plan.json", name)
	}
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s is a directory; give the path of a plan.json file", name)
	}
	if !info.Mode().IsRegular() {
		// A FIFO blocks open(2) until a writer comes; a device never ends.
		return nil, fmt.Errorf("%s is not a regular file (%s); give the path of a plan.json file", name, swarm.FileKind(info.Mode()))
	}
	if info.Size() > swarm.MaxFileSize {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", name, info.Size(), swarm.MaxFileSize)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, swarm.MaxFileSize+1))
	if err == nil && len(data) > swarm.MaxFileSize {
		err = fmt.Errorf("%s is over the %d-byte limit", name, swarm.MaxFileSize)
	}
	return data, err
}

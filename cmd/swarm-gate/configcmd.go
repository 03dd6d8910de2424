package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swarm-gate/swarm-gate/gates"
	"github.com/swarm-gate/swarm-gate/internal/config"
	"github.com/swarm-gate/swarm-gate/internal/swarm"
)

// runConfigValidate checks a policy file the way the check reads it, and
// prints every problem as FILE:LINE:COLUMN: message (the form editors and
// problem matchers jump to).
func runConfigValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newFlagSet("config validate", args, stdout, stderr)
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: swarm-gate config validate [FILE]")
		fmt.Fprintln(flags.Output(), "Reads a policy file as swarm-gate check does (default "+config.Path+"; - reads standard")
		fmt.Fprintln(flags.Output(), "input) and prints every problem as FILE:LINE:COLUMN: message, not only the first.")
		fmt.Fprintln(flags.Output(), "Exit code: 0 valid, 1 invalid, 2 the file cannot be read, 3 usage error.")
	}
	pos, err := parseFlags(flags, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 1 {
		fmt.Fprintln(stderr, "usage: swarm-gate config validate [FILE]   (default "+config.Path+")")
		return exitUsage
	}
	path := config.Path
	if len(pos) == 1 {
		path = pos[0]
	}
	var data []byte
	if path == "-" {
		path = "(stdin)"
		var err error
		if data, err = io.ReadAll(io.LimitReader(stdin, config.MaxSize+1)); err != nil {
			fmt.Fprintf(stderr, "swarm-gate: reading standard input: %v\n", err)
			return exitError
		}
	} else {
		var code int
		if data, code = readPolicyArg(path, len(pos) == 0, stdout, stderr); code >= 0 {
			return code
		}
	}
	if len(data) > config.MaxSize {
		fmt.Fprintf(stdout, "%s: is over the %d-byte limit of a policy file\n%s: 1 problem\n", path, config.MaxSize, path)
		return 1
	}
	var problems []string
	if filepath.Base(path) == "swarm-gate.yaml" {
		// Fails closed only when alone: beside a .yml it is merely ignored.
		if fileExists(filepath.Join(filepath.Dir(path), "swarm-gate.yml")) {
			problems = append(problems, fmt.Sprintf("%s: swarm-gate reads %s (with .yml), which is beside this file: this one is never read; delete it", path, config.Path))
		} else {
			problems = append(problems, fmt.Sprintf("%s: swarm-gate reads %s (with .yml): rename the file; as it is, every check fails closed", path, config.Path))
		}
	}
	c, err := config.Parse(path, data)
	if err != nil {
		all := config.All(err)
		if len(all) == 0 {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
		}
		for _, e := range all {
			switch {
			case e.Line > 0 && e.Column > 0:
				problems = append(problems, fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Column, e.Err))
			case e.Line > 0:
				problems = append(problems, fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err))
			default:
				problems = append(problems, fmt.Sprintf("%s: %v", e.Path, e.Err))
			}
		}
	}
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "%s: valid\n", path)
		if onlyComments(data) {
			fmt.Fprintf(stdout, "%s: is empty, so the check uses the built-in defaults\n", path)
		}
		if broad := gates.BroadExtras(c.Scope.Extras); len(broad) > 0 {
			fmt.Fprintf(stdout, "%s: warning: scope.extras %q allows every path, so swarm/scope can never find a file outside a task's scope; narrow it (e.g. dist/**)\n", path, broad)
		}
		if path == config.Path && fileExists(config.AltPath) {
			fmt.Fprintf(stdout, "%s: warning: swarm-gate reads %s only; this file is not read: delete it\n", config.AltPath, config.Path)
		}
		return 0
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	noun := "problems"
	if len(problems) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(stdout, "%s: %d %s\n", path, len(problems), noun)
	return 1
}

// onlyComments reports whether a YAML file sets nothing (blank, or only
// comments and document markers), which Parse reads as the defaults.
func onlyComments(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && string(line) != "---" {
			return false
		}
	}
	return true
}

// readPolicyArg reads the named policy file, or prints why it cannot and
// returns the exit code (-1 when data was read). Only a regular file is
// opened: opening a FIFO blocks until a writer comes, and a device or
// socket is no policy file.
func readPolicyArg(path string, implicit bool, stdout, stderr io.Writer) ([]byte, int) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && implicit && fileExists(".github/swarm-gate.yaml"):
		fmt.Fprintf(stdout, ".github/swarm-gate.yaml: swarm-gate reads %s (with .yml): rename the file; as it is, every check fails closed\n.github/swarm-gate.yaml: 1 problem\n", config.Path)
		return nil, 1
	case errors.Is(err, fs.ErrNotExist) && implicit:
		fmt.Fprintf(stderr, "swarm-gate: %s does not exist (without it the check uses the built-in defaults); name a file: swarm-gate config validate FILE\n", path)
		return nil, exitError
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "swarm-gate: %s does not exist\n", path)
		return nil, exitError
	case err != nil:
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return nil, exitError
	case info.IsDir():
		fmt.Fprintf(stderr, "swarm-gate: %s is a directory, expected a policy file\n", path)
		return nil, exitError
	case !info.Mode().IsRegular():
		fmt.Fprintf(stderr, "swarm-gate: %s is not a regular file (%s), expected a policy file; to read a pipe, give - and redirect it to standard input\n", path, swarm.FileKind(info.Mode()))
		return nil, exitError
	case info.Size() > config.MaxSize:
		fmt.Fprintf(stdout, "%s: is %d bytes, over the %d-byte limit of a policy file\n%s: 1 problem\n", path, info.Size(), config.MaxSize, path)
		return nil, 1
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return nil, exitError
	}
	defer f.Close()
	// Bounded: the file may grow between the stat and the read.
	data, err := io.ReadAll(io.LimitReader(f, config.MaxSize+1))
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return nil, exitError
	}
	return data, -1
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

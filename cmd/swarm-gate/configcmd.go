package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/swarm-gate/swarm-gate/internal/config"
)

// runConfigValidate checks a policy file the way the check reads it, and
// prints every problem as FILE:LINE:COLUMN: message (the form editors and
// problem matchers jump to).
func runConfigValidate(args []string, stdout, stderr io.Writer) int {
	flags := newFlagSet("config validate", args, stdout, stderr)
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: swarm-gate config validate [FILE]")
		fmt.Fprintln(flags.Output(), "Reads a policy file as swarm-gate check does (default "+config.Path+") and prints every")
		fmt.Fprintln(flags.Output(), "problem as FILE:LINE:COLUMN: message, not only the first.")
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
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(pos) == 0:
		fmt.Fprintf(stderr, "swarm-gate: %s does not exist (without it the check uses the built-in defaults); name a file: swarm-gate config validate FILE\n", path)
		return exitError
	case err != nil:
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return exitError
	case info.IsDir():
		fmt.Fprintf(stderr, "swarm-gate: %s is a directory, expected a policy file\n", path)
		return exitError
	case info.Size() > config.MaxSize:
		fmt.Fprintf(stderr, "swarm-gate: %s is %d bytes, over the %d-byte limit\n", path, info.Size(), config.MaxSize)
		return 1
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "swarm-gate: %v\n", err)
		return exitError
	}
	if _, err := config.Parse(path, data); err != nil {
		all := config.All(err)
		if len(all) == 0 {
			fmt.Fprintf(stdout, "%s: %v\n", path, err)
			return 1
		}
		for _, e := range all {
			switch {
			case e.Line > 0 && e.Column > 0:
				fmt.Fprintf(stdout, "%s:%d:%d: %v\n", e.Path, e.Line, e.Column, e.Err)
			case e.Line > 0:
				fmt.Fprintf(stdout, "%s:%d: %v\n", e.Path, e.Line, e.Err)
			default:
				fmt.Fprintf(stdout, "%s: %v\n", e.Path, e.Err)
			}
		}
		noun := "problems"
		if len(all) == 1 {
			noun = "problem"
		}
		fmt.Fprintf(stdout, "%s: %d %s\n", path, len(all), noun)
		return 1
	}
	fmt.Fprintf(stdout, "%s: valid\n", path)
	return 0
}

package main

import (
	"flag"
	"fmt"
	"strings"
)

// parseFlags parses a subcommand's arguments with flags and positional
// arguments in any order (`plan hash FILE --format json`), as go's flag
// package alone does not, and returns the positional ones. Everything
// after "--" is positional. A flag given twice is an error (the flag
// package would keep the last silently), as is an unknown flag; both are
// reported on fs's output with its usage, and the caller exits with
// parseExit.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, positional []string
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue // fs.Parse reports it (or shows the help)
		}
		if seen[f.Name] {
			err := fmt.Errorf("flag -%s given twice", f.Name)
			fmt.Fprintln(fs.Output(), err)
			fs.Usage()
			return nil, err
		}
		seen[f.Name] = true
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return append(fs.Args(), positional...), nil
}

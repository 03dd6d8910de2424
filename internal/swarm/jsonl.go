package swarm

import (
	"bytes"
	"errors"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// jsonLine is one non-empty line of a JSONL file, parsed.
type jsonLine struct {
	Line  int
	Raw   []byte // the line's bytes without "\n" and without a trailing "\r"
	Value *jsjson.Value
}

// forEachJSONLine parses data as JSON Lines: one JSON object per line, "\n"
// separated, a trailing "\r" tolerated, a final newline optional, blank
// lines at the very end ignored. An empty line in the middle of the file, a line that is not valid JSON, or a value
// that is not an object stops the walk with an *ArtifactError for that line.
func forEachJSONLine(name string, data []byte, fn func(jsonLine) error) error {
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		raw, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		if lineNo == 1 {
			raw = trimBOM(raw)
		}
		if len(raw) == 0 {
			if len(bytes.Trim(data, "\r\n")) == 0 {
				break // blank lines at the end of the file carry nothing
			}
			return &ArtifactError{Path: name, Line: lineNo, Err: errors.New("empty line (each line must hold one JSON object)")}
		}
		jl, err := parseJSONLine(name, lineNo, raw)
		if err != nil {
			return err
		}
		if err := fn(jl); err != nil {
			return err
		}
	}
	return nil
}

package changeset

import (
	"bytes"
	"errors"
	"io"
)

// headerCounter passes a diff through and counts the lines that start a file
// entry ("diff --git ") or a hunk ("@@ "). Neither can be hunk content (which
// starts with ' ', '+', '-' or '\'), so Parse compares the counts with what
// go-diff returned to catch entries or hunks it skipped without an error.
type headerCounter struct {
	r           io.Reader
	gitHeaders  int
	hunkHeaders int
	err         error // a read error other than io.EOF

	lineStart []byte // the first bytes of the current line, up to len(gitHeaderPrefix)
	midLine   bool   // the current line is longer than lineStart can tell
}

const (
	gitHeaderPrefix  = "diff --git "
	hunkHeaderPrefix = "@@ "
)

func (c *headerCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		if c.midLine {
			// The rest of the line cannot start a header: jump to its end
			// rather than look at each byte.
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			c.lineStart, c.midLine = c.lineStart[:0], false
			b = b[i+1:]
			continue
		}
		c.scan(b[0])
		b = b[1:]
	}
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	return n, err
}

func (c *headerCounter) scan(b byte) {
	if b == '\n' {
		c.lineStart, c.midLine = c.lineStart[:0], false
		return
	}
	if c.midLine {
		return
	}
	c.lineStart = append(c.lineStart, b)
	switch string(c.lineStart) {
	case gitHeaderPrefix:
		c.gitHeaders++
		c.midLine = true
	case hunkHeaderPrefix:
		c.hunkHeaders++
		c.midLine = true
	default:
		if len(c.lineStart) >= len(gitHeaderPrefix) || !isPrefixOfEither(c.lineStart) {
			c.midLine = true
		}
	}
}

func isPrefixOfEither(s []byte) bool {
	return isPrefix(s, gitHeaderPrefix) || isPrefix(s, hunkHeaderPrefix)
}

func isPrefix(s []byte, of string) bool {
	return len(s) <= len(of) && string(s) == of[:len(s)]
}

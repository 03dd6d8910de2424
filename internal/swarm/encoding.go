package swarm

import (
	"bytes"
	"fmt"
	"io/fs"
)

// EncodingError is an *ArtifactError (line 1) when data is not in UTF-8
// but in UTF-16 or UTF-32, by its byte order mark or, without one, by every
// other byte of its first 64 being zero (as PowerShell's Out-File writes);
// nil otherwise. The plugin reads its files as UTF-8, so such a file is
// one it could not read either.
func EncodingError(name string, data []byte) error {
	if enc := utf16Or32(data); enc != "" {
		return &ArtifactError{Path: name, Line: 1, Err: fmt.Errorf("the file is %s (it starts with that byte order mark); save it as UTF-8", enc)}
	}
	if enc := utf16NoMark(data); enc != "" {
		return &ArtifactError{Path: name, Line: 1, Err: fmt.Errorf("the file looks like %s without a byte order mark (every other byte is zero); save it as UTF-8", enc)}
	}
	return nil
}

// utf16Or32 names the encoding whose byte order mark data starts with,
// UTF-16 or UTF-32 in either byte order; "" for anything else (UTF-8, with
// or without its mark).
func utf16Or32(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0x00, 0x00, 0xFE, 0xFF}):
		return "UTF-32 (big-endian)"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0x00, 0x00}):
		return "UTF-32 (little-endian)"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return "UTF-16 (big-endian)"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return "UTF-16 (little-endian)"
	}
	return ""
}

// utf16NoMark names UTF-16's byte order when data, with no byte order
// mark, reads as ASCII text in UTF-16: in its first 64 bytes every other
// byte is zero and the others are not. "" otherwise.
func utf16NoMark(data []byte) string {
	n := min(len(data), 64) &^ 1
	if n < 4 {
		return ""
	}
	le, be := true, true
	for i := 0; i < n; i += 2 {
		le = le && data[i] != 0 && data[i+1] == 0
		be = be && data[i] == 0 && data[i+1] != 0
	}
	switch {
	case le:
		return "UTF-16 (little-endian)"
	case be:
		return "UTF-16 (big-endian)"
	}
	return ""
}

// FileKind names a non-regular file's kind for a message ("a named pipe",
// "a device", ...): the .swarm reader, the CLI and the SARIF reader refuse such files, since
// opening a FIFO blocks and a device never ends.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.Type().String()
}

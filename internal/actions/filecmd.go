package actions

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"
)

// SetOutput sets the step output name to value by appending to the file
// named by GITHUB_OUTPUT, in the runner's heredoc form:
//
//	name<<ghadelimiter_5f0c1a3e-...\n
//	value\n
//	ghadelimiter_5f0c1a3e-...\n
//
// The delimiter is "ghadelimiter_" and a random UUID from crypto/rand, as
// the toolkit's prepareKeyValueMessage writes it, and is drawn again if
// the value happens to contain it, so no value (however hostile: "EOF",
// a line that looks like a delimiter, "name=value" lines) can end the
// heredoc early and set another output. The runner reads the value back
// byte for byte on Linux, CR LF included; container actions always run on
// Linux.
//
// Names must be identifiers (a letter or '_', then letters, digits, '_'
// or '-'), which rules out newlines, "<<" and "=" (a line with '=' before
// "<<" is read as name=value). Names and values must be valid UTF-8: the
// runner decodes the file as UTF-8 and would replace invalid bytes.
//
// Without GITHUB_OUTPUT this is an error, with no fall back to the
// ::set-output:: log command: GitHub deprecated it (changelog 2022-10-11)
// and, being read from the log, it can be forged by anything the step
// prints.
func (e Env) SetOutput(name, value string) error {
	if !outputNameRE.MatchString(name) {
		return fmt.Errorf("setting output %q: not a valid output name (want a letter or _, then letters, digits, _ or -)", name)
	}
	return e.appendKeyValue("GITHUB_OUTPUT", "output", name, value)
}

// ExportVariable sets the environment variable name for the job's later
// steps by appending to the file named by GITHUB_ENV, in the same heredoc
// form as SetOutput. Names are shell-style ([A-Za-z_][A-Za-z0-9_]*);
// NODE_OPTIONS is refused, as the runner refuses it.
func (e Env) ExportVariable(name, value string) error {
	if !envNameRE.MatchString(name) {
		return fmt.Errorf("exporting variable %q: not a valid variable name (want [A-Za-z_][A-Za-z0-9_]*)", name)
	}
	if strings.EqualFold(name, "NODE_OPTIONS") {
		return fmt.Errorf("exporting variable %s: the runner does not allow setting it", name)
	}
	return e.appendKeyValue("GITHUB_ENV", "variable", name, value)
}

var (
	outputNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// delimiterPrefix is the toolkit's heredoc delimiter prefix.
const delimiterPrefix = "ghadelimiter_"

func (e Env) appendKeyValue(fileVar, what, name, value string) error {
	path := e.Get(fileVar)
	if path == "" {
		return fmt.Errorf("setting %s %s: %s is not set (run as a GitHub Actions step; the ::set-output:: and ::set-env:: log commands are not used)", what, name, fileVar)
	}
	if !utf8.ValidString(value) {
		return fmt.Errorf("setting %s %s: value is not valid UTF-8", what, name)
	}
	record, err := heredoc(e.random, name, value)
	if err != nil {
		return fmt.Errorf("setting %s %s: %w", what, name, err)
	}
	if err := appendFile(path, record); err != nil {
		return fmt.Errorf("setting %s %s: %s file: %w", what, name, fileVar, err)
	}
	return nil
}

// heredoc formats one name<<DELIM record with a fresh random delimiter that
// occurs in neither name nor value.
func heredoc(random io.Reader, name, value string) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	for range 8 {
		delim, err := newDelimiter(random)
		if err != nil {
			return "", err
		}
		if strings.Contains(value, delim) || strings.Contains(name, delim) {
			continue
		}
		return name + "<<" + delim + "\n" + value + "\n" + delim + "\n", nil
	}
	return "", errors.New("could not draw a heredoc delimiter absent from the value")
}

// newDelimiter is "ghadelimiter_" and a random (version 4) UUID.
func newDelimiter(random io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("drawing a heredoc delimiter: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return delimiterPrefix + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// appendFile appends data with one write to an existing file. The runner
// creates the file before the step starts; a missing file means the path
// is wrong, so it is not created here (the toolkit refuses it too).
func appendFile(path, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package swarm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"

	"github.com/swarm-gate/swarm-gate/internal/jsjson"
)

// Limits of the ledger reader. Real ledgers hold a few hundred events on
// lines of at most some tens of KiB; these bounds are hundreds of times
// that, and keep a hostile ledger within memory and time (each event costs
// a few hundred bytes once parsed, and the replay does work per event).
const (
	// MaxLedgerEvents is the most events a ledger may hold; reading stops
	// with an *ArtifactError at the line after it.
	MaxLedgerEvents = 100_000
	// MaxLedgerLine is the longest ledger line, in bytes (without "\n").
	MaxLedgerLine = 4 << 20
	// MaxLedgerPayload is the most bytes the lines that carry a payload
	// (snapshots and the embedded plans in them) may hold in all: their
	// parsed JSON is kept for the gates, at several times its size.
	MaxLedgerPayload = 8 << 20
)

// lineSum identifies one line of a ledger file for the append-only check
// without keeping its bytes.
type lineSum struct {
	sum  [sha256.Size]byte // the line's bytes, a "\r" and a byte order mark included, "\n" excluded
	norm uint64            // FNV-1a of the line without a byte order mark and a trailing "\r" (for the hint)
	term bool              // the line ends with "\n"
}

// ReadLedger reads plan-ledger.jsonl content from r line by line, as
// ParseLedger parses it, without holding the whole file: only the parsed
// events and, for the append-only check (CheckAppendOnly), a digest of
// each line. It stops with an *ArtifactError naming the line at the first
// malformed line, a line over MaxLedgerLine bytes, the event after
// MaxLedgerEvents, or when the lines that carry a payload exceed
// MaxLedgerPayload bytes; it reads (and digests) the rest of the file even
// then, so that the merge base's ledger can still be compared. A read error
// of r is returned as it is.
func ReadLedger(name string, r io.Reader) (*Ledger, error) {
	return readLedgerLines(name, r, nil)
}

// readLedgerLines is ReadLedger within a JSON value budget (nil: none): a
// line is parsed only when its values fit in what is left, and the lines
// whose parsed payload is kept are debited.
func readLedgerLines(name string, r io.Reader, budget *budgetFS) (*Ledger, error) {
	l := &Ledger{Path: name}
	in := ledgerInterner{}
	var firstErr error
	stop := func(line int, err error) {
		if firstErr == nil {
			firstErr = &ArtifactError{Path: name, Line: line, Err: err}
		}
	}
	payload := 0
	pendingEmpty := 0 // the first of a run of empty lines, which is only allowed at the end of the file
	sc := newLineScanner(r, MaxLedgerLine)
	for lineNo := 1; ; lineNo++ {
		raw, ls, err := sc.next(lineNo == 1)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return l, err
		}
		l.lines = append(l.lines, ls)
		l.size += int64(sc.n)
		if lineNo == 1 && bytes.HasPrefix(sc.first, utf8BOM) {
			l.bom = true
		}
		if lineNo == 1 && raw != nil {
			if err := EncodingError(name, raw); err != nil {
				firstErr = err
			}
		}
		if firstErr != nil {
			continue // digest the rest, parse nothing more
		}
		if raw == nil {
			stop(lineNo, fmt.Errorf("the line is longer than %d bytes; swarm-gate reads ledger lines of at most that size (the plugin's are some KiB)", MaxLedgerLine))
			continue
		}
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		if lineNo == 1 {
			raw = trimBOM(raw)
		}
		if len(bytes.Trim(raw, "\r")) == 0 && (len(raw) == 0 || pendingEmpty > 0) {
			if pendingEmpty == 0 {
				pendingEmpty = lineNo
			}
			continue
		}
		if pendingEmpty > 0 {
			stop(pendingEmpty, errors.New("empty line (each line must hold one JSON object)"))
			continue
		}
		if len(l.Events) >= MaxLedgerEvents {
			stop(lineNo, fmt.Errorf("more than %d events; swarm-gate reads at most that many (the plugin's ledgers hold hundreds): check that the file was not generated or its lines duplicated", MaxLedgerEvents))
			continue
		}
		values := CountJSONValues(raw)
		if budget != nil && values > budget.left {
			stop(lineNo, budget.spend(values))
			continue
		}
		jl, err := parseJSONLine(name, lineNo, raw)
		if err != nil {
			stop(lineNo, errors.Unwrap(err))
			continue
		}
		ev, err := ledgerEvent(jl)
		if err != nil {
			stop(lineNo, err)
			continue
		}
		ev.Raw = nil // the scanner reuses its buffer: kept (copied) below for payload lines only
		if ev.Payload != nil {
			if payload += len(raw); payload > MaxLedgerPayload {
				stop(lineNo, fmt.Errorf("the lines that carry a payload (snapshots with their embedded plans) add up to more than %d bytes; swarm-gate keeps them in memory and reads at most that much (the plugin's ledgers hold some hundred KiB)", MaxLedgerPayload))
				continue
			}
			ev.Raw = bytes.Clone(raw)
			if budget != nil {
				if err := budget.spend(values); err != nil {
					stop(lineNo, err)
					continue
				}
			}
		}
		in.event(&ev)
		l.Events = append(l.Events, ev)
	}
	return l, firstErr
}

// readLedger opens name in fsys and reads it with ReadLedger, with the
// size limit checked first. Errors are *ArtifactError, except for absence,
// which wraps fs.ErrNotExist.
func readLedger(fsys fs.FS, name string) (*Ledger, error) {
	if err := checkArtifact(fsys, name); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	if IsLFSPointer(head[:n]) {
		return nil, lfsError(name)
	}
	l, err := readLedgerLines(name, io.MultiReader(bytes.NewReader(head[:n]), f), jsonBudget(fsys))
	var ae *ArtifactError
	if err != nil && !errors.As(err, &ae) {
		return nil, &ArtifactError{Path: name, Err: unwrapPath(err)}
	}
	return l, err
}

// parseJSONLine parses one non-empty line of a JSONL file (no terminator)
// that must hold a JSON object. The error is an *ArtifactError for the
// line.
func parseJSONLine(name string, lineNo int, raw []byte) (jsonLine, error) {
	v, err := jsjson.Parse(raw)
	if err != nil {
		var se *jsjson.SyntaxError
		if errors.As(err, &se) {
			if se.Offset >= len(raw) {
				err = errors.New(se.Msg + " (the line is truncated)")
			} else {
				err = errors.New(se.Msg + " at column " + itoa(se.Column))
			}
		}
		return jsonLine{}, &ArtifactError{Path: name, Line: lineNo, Err: err}
	}
	if v.Kind != jsjson.Object {
		return jsonLine{}, &ArtifactError{Path: name, Line: lineNo, Err: errors.New("want a JSON object, found " + v.Kind.String())}
	}
	return jsonLine{Line: lineNo, Raw: raw, Value: v}, nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// lineScanner splits a stream into lines, digesting each; it holds one line
// at a time, and no more than max bytes of it.
type lineScanner struct {
	r     *bufio.Reader
	max   int
	buf   []byte
	first []byte // the first bytes of the current line (for a byte order mark)
	n     int    // bytes of the current line, "\n" included
}

func newLineScanner(r io.Reader, max int) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its "\n" (nil when it is longer than
// max bytes) and its digest, or io.EOF after the last line.
func (s *lineScanner) next(first bool) ([]byte, lineSum, error) {
	s.buf, s.first, s.n = s.buf[:0], s.first[:0], 0
	h := sha256.New()
	long := false
	var ls lineSum
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(frag) > 0 && len(s.first) < len(utf8BOM) {
			s.first = append(s.first, frag[:min(len(frag), len(utf8BOM)-len(s.first))]...)
		}
		s.n += len(frag)
		content := frag
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			content, ls.term = frag[:len(frag)-1], true
		}
		h.Write(content)
		if !long {
			if len(s.buf)+len(content) > s.max {
				long, s.buf = true, s.buf[:0]
			} else {
				s.buf = append(s.buf, content...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if s.n == 0 {
				return nil, ls, io.EOF
			}
		case err != nil:
			return nil, ls, err
		}
		break
	}
	h.Sum(ls.sum[:0])
	if long {
		ls.norm = fnvOf(ls.sum[:])
		return nil, ls, nil
	}
	norm := bytes.TrimSuffix(s.buf, []byte{'\r'})
	if first {
		norm = trimBOM(norm)
	}
	ls.norm = fnvOf(norm)
	if s.buf == nil {
		s.buf = []byte{} // an empty line is not a long one
	}
	return s.buf, ls, nil
}

func fnvOf(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// ledgerInterner shares the strings that repeat from event to event (event
// types, sources, plan ids, hashes: each event's plan_hash_before is usually
// an earlier plan_hash_after), up to a bound.
type ledgerInterner map[string]string

func (in ledgerInterner) event(ev *LedgerEvent) {
	for _, s := range []*string{&ev.PlanID, &ev.EventType, &ev.Source, &ev.PlanHashBefore, &ev.PlanHashAfter,
		&ev.SchemaVersion, &ev.TaskID, &ev.FromStatus, &ev.ToStatus} {
		*s = in.str(*s)
	}
}

func (in ledgerInterner) str(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	if len(in) < 10_000 {
		in[s] = s
	}
	return s
}

// AppendOnly is how a head ledger relates to the merge base's (DESIGN.md
// section 3.3: the head must extend the base byte for byte).
type AppendOnly struct {
	// Extends is true when the head's bytes start with all of the base's
	// (or the base is missing or empty).
	Extends bool
	// Line is the first line (1-based) of the base that the head does not
	// have, when Extends is false.
	Line int
	// Truncated: the head is a shorter copy of the base's first lines.
	Truncated bool
	// HeadBytes and BaseBytes are the files' sizes.
	HeadBytes, BaseBytes int64
	// OnlyBOM: once a byte order mark and CRLF line ends are set aside the
	// head extends the base, and the head starts with a byte order mark
	// the base lacks. OnlyEOL: the same with line ends alone (CRLF for LF).
	OnlyBOM, OnlyEOL bool
}

// CheckAppendOnly compares the head ledger with the merge base's, line by
// line by their digests (sha256): no copy of either file is needed. A base
// line that ends the base file without "\n" matches a head line with the
// same bytes, terminated or not (the head appended after it).
func CheckAppendOnly(base, head *Ledger) AppendOnly {
	var a AppendOnly
	if head != nil {
		a.HeadBytes = head.size
	}
	if base == nil || base.size == 0 {
		a.Extends = true
		return a
	}
	a.BaseBytes = base.size
	var hl []lineSum
	headBOM := false
	if head != nil {
		hl, headBOM = head.lines, head.bom
	}
	same := func(i int, norm bool) bool {
		b, h := base.lines[i], hl[i]
		// A line that ends either file without "\n" is a prefix of the
		// other's same line with one.
		ends := b.term == h.term || (i == len(base.lines)-1 && !b.term) || (i == len(hl)-1 && !h.term)
		if norm {
			return b.norm == h.norm && ends
		}
		return b.sum == h.sum && ends
	}
	match := func(norm bool) int { // lines of the base the head has
		i := 0
		for i < len(base.lines) && i < len(hl) && same(i, norm) {
			i++
		}
		return i
	}
	n := match(false)
	if n == len(base.lines) {
		a.Extends = true
		return a
	}
	a.Line = n + 1
	a.Truncated = n == len(hl) && a.HeadBytes < a.BaseBytes
	if match(true) == len(base.lines) {
		a.OnlyBOM = headBOM && !base.bom
		a.OnlyEOL = !a.OnlyBOM
	}
	return a
}

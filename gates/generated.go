package gates

import (
	"bytes"
	"path"
	"strings"

	"github.com/swarm-gate/swarm-gate/internal/changeset"
)

// GeneratedReason says why a changed file is generated, vendored or
// minified code that swarm/placeholders and swarm/sast do not scan ("" when
// it is the project's own source): its path (vendor/, node_modules/,
// third_party/, dist/, *.min.js, *.min.css, *.map, *.lock-style bundles)
// or, when head is not nil, its first bytes (a "Code generated ... DO NOT
// EDIT" or @generated header, wasm-bindgen glue, or TypeScript/Babel
// CommonJS output). head may be any prefix of the file; 4 KiB is enough.
// The gates list every file skipped this way in one notice, so that
// nothing added goes unscanned unseen.
func GeneratedReason(p string, head []byte) string {
	l := strings.ToLower(p)
	segs := strings.Split(l, "/")
	for _, s := range segs[:len(segs)-1] {
		switch s {
		case "vendor", "node_modules", "third_party", "bower_components":
			return "vendored (" + s + "/)"
		case "dist":
			return "build output (dist/)"
		}
	}
	base := path.Base(l)
	switch {
	case strings.HasSuffix(base, ".min.js"), strings.HasSuffix(base, ".min.mjs"), strings.HasSuffix(base, ".min.css"):
		return "minified"
	case strings.HasSuffix(base, ".js.map"), strings.HasSuffix(base, ".css.map"):
		return "source map"
	case strings.HasSuffix(base, ".pb.go"), strings.HasSuffix(base, "_pb2.py"), strings.HasSuffix(base, ".g.dart"), strings.HasSuffix(base, ".designer.cs"):
		return "generated (by its name)"
	}
	if head == nil {
		return ""
	}
	if len(head) > 4096 {
		head = head[:4096]
	}
	switch {
	case generatedHeader(head):
		return "generated (its header says so)"
	case bytes.Contains(head, []byte("__wbindgen")), bytes.Contains(head, []byte("wasm-bindgen")):
		return "wasm-bindgen glue"
	case bytes.Contains(head, []byte(`Object.defineProperty(exports, "__esModule", { value: true });`)):
		return "compiled JavaScript (CommonJS output of tsc or Babel)"
	}
	return ""
}

// Linguist is what a commit's .gitattributes say of paths
// (internal/gitattr.Linguist): Reason's set is false when they say
// nothing, and reason is "" with set true when they mark the path as the
// project's own (linguist-generated=false); Errors lists the
// .gitattributes files that could not be read.
type Linguist interface {
	Reason(path string) (reason string, set bool)
	Errors() []error
}

// GeneratedReasonFor is GeneratedReason with the .gitattributes first:
// linguist-generated and linguist-vendored skip a file, and =false (or
// -linguist-...) scans one the path rules would skip. l may be nil. The
// attributes come from the base branch, so a pull request cannot mark its
// own code generated to skip it.
func GeneratedReasonFor(l Linguist, p string, head []byte) string {
	if l != nil {
		if r, set := l.Reason(p); set {
			return r
		}
	}
	return GeneratedReason(p, head)
}

// linguistNote says which .gitattributes files could not be read ("" when
// none), for a gate's summary.
func linguistNote(l Linguist) string {
	if l == nil {
		return ""
	}
	errs := l.Errors()
	if len(errs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" Not applied (the files they would skip are scanned): ")
	for i, err := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(err.Error())
	}
	return b.String() + "."
}

// GeneratedReasonIn is GeneratedReasonFor for a file a pull request
// changes: for a file that existed on the merge base (old at oldPath,
// hasOld), a reason read from the content (a generated-code header,
// wasm-bindgen glue, compiled output) counts only when the merge base's
// version gives one too, so that a header the pull request writes into
// hand-written code does not exempt what it adds. A file the pull request
// adds (hasOld false) is judged by its content, and listed in the gate's
// notice of files not scanned. The .gitattributes (from the base branch)
// and the path rules count as in GeneratedReasonFor.
func GeneratedReasonIn(l Linguist, p string, head []byte, oldPath string, old []byte, hasOld bool) string {
	if l != nil {
		if r, set := l.Reason(p); set {
			return r
		}
	}
	if r := GeneratedReason(p, nil); r != "" || head == nil {
		return r
	}
	r := GeneratedReason(p, head)
	if r == "" || hasOld && GeneratedReason(oldPath, old) == "" {
		return ""
	}
	return r
}

// GeneratedReasonChanged is GeneratedReasonFor(l, f.NewPath, head) for a
// changed file under the limits section: with ScanNewGenerated, a file
// the pull request adds or copies is generated only when the base
// branch's .gitattributes say so, and a renamed one by its path only when
// its merge-base path is generated too.
func GeneratedReasonChanged(lim LimitsConfig, l Linguist, f *changeset.File, head []byte) string {
	if !lim.ScanNewGenerated {
		return GeneratedReasonFor(l, f.NewPath, head)
	}
	if l != nil {
		if r, set := l.Reason(f.NewPath); set {
			return r
		}
	}
	switch f.Status {
	case changeset.Added, changeset.Copied:
		return ""
	case changeset.Renamed:
		if r := GeneratedReason(f.NewPath, nil); r != "" && GeneratedReason(f.OldPath, nil) == "" {
			return ""
		}
	}
	return GeneratedReason(f.NewPath, head)
}

// GeneratedReasonChangedIn is GeneratedReasonIn for changed file f (old
// its merge-base content, when hasOld) under the limits section: with
// ScanNewGenerated, only what the merge base says counts, as in
// GeneratedReasonChanged.
func GeneratedReasonChangedIn(lim LimitsConfig, l Linguist, f *changeset.File, head, old []byte, hasOld bool) string {
	why := GeneratedReasonIn(l, f.NewPath, head, f.OldPath, old, hasOld)
	if why == "" || !lim.ScanNewGenerated {
		return why
	}
	// A new file's own header or path does not exempt it, nor a rename's
	// new path alone.
	byPath := GeneratedReasonChanged(lim, l, f, nil)
	if !hasOld || byPath == "" && GeneratedReason(f.NewPath, nil) != "" {
		return byPath
	}
	return why
}

// generatedHeader reports whether the first lines carry a generated-code
// marker: Go's "Code generated ... DO NOT EDIT." convention, or @generated.
func generatedHeader(head []byte) bool {
	lines := 0
	for len(head) > 0 && lines < 10 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		lines++
		if bytes.Contains(line, []byte("@generated")) ||
			(bytes.Contains(line, []byte("Code generated")) && bytes.Contains(line, []byte("DO NOT EDIT"))) {
			return true
		}
	}
	return false
}

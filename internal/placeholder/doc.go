// Package placeholder finds placeholders (TODO comments, stub bodies,
// placeholder strings, plan template brackets) on the lines of a file,
// telling comments and strings from code with a small lexer per language
// family.
//
// It is the engine of swarm/placeholders (gates.Placeholders), which
// decides what files to scan, reads them and reports; the rules mirror the
// plugin's placeholder_scan (src/tools/placeholder-scan.ts, spec section
// 6) with its rule ids. Its lexer also serves swarm/sast (CodeAt).
package placeholder

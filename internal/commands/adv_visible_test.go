package commands

import "testing"

// TestAdvCommandInHTMLInlineWrappers: the docs say a /swarm line in
// strikethrough (~~ ~), link or code text is no command, since nobody
// reading the comment sees it as one. Raw HTML does the same to a whole
// paragraph: <del>, <s>, <strike> strike it through, <a> makes it a link,
// <code> code; the command inside must not count either.
func TestAdvCommandInHTMLInlineWrappers(t *testing.T) {
	for _, tag := range []string{"del", "s", "strike", "a href=\"https://example.com\"", "code"} {
		name := tag
		if i := len("a"); tag[:i] == "a" && len(tag) > 1 && tag[1] == ' ' {
			name = "a"
		}
		body := "<" + tag + ">\n\n/swarm approve-plan-critic reviewed\n\n</" + name + ">"
		if c, _ := Parse(body); c != nil {
			t.Errorf("<%s>: %q parsed as %s %q", name, body, c.Name, c.Reason)
		}
	}
	// Control: a plain command still counts.
	if c, err := Parse("/swarm approve-plan-critic reviewed"); c == nil {
		t.Fatalf("plain command: %v", err)
	}
}

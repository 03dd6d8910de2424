package placeholder

import "testing"

func TestPlaceholderRulesList(t *testing.T) {
	rules := Rules()
	if len(rules) != int(numPhRules) || rules[0] != RuleCommentTodo || rules[len(rules)-1] != RuleSuppressionNoReason {
		t.Errorf("Rules() = %v", rules)
	}
}

package evaluate

import (
	"testing"
	"time"
)

func TestOrgPolicyCache(t *testing.T) {
	var c OrgPolicyCache
	t0 := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	if _, ok := c.get("octo", t0); ok {
		t.Fatal("an empty cache has an entry")
	}
	c.put("octo", orgPolicyEntry{data: []byte("version: 1\n"), found: true, at: t0})
	for _, tt := range []struct {
		owner string
		at    time.Time
		ok    bool
	}{
		{"octo", t0.Add(DefaultOrgPolicyTTL - time.Second), true},
		{"octo", t0.Add(DefaultOrgPolicyTTL), false}, // expired: read again
		{"octo", t0.Add(-time.Minute), false},        // the clock went back
		{"other", t0, false},
	} {
		if _, ok := c.get(tt.owner, tt.at); ok != tt.ok {
			t.Errorf("get(%s, t0%+v) = %v, want %v", tt.owner, tt.at.Sub(t0), ok, tt.ok)
		}
	}
	c.TTL = time.Hour
	if _, ok := c.get("octo", t0.Add(30*time.Minute)); !ok {
		t.Error("TTL is not honoured")
	}
}

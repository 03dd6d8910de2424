package evaluate

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
	"github.com/swarm-gate/swarm-gate/internal/pipeline"
)

// OrgPolicyRepo and OrgPolicyPath are where the owner's policy lives: the
// owner's `.github` repository (GitHub's home for organisation-wide
// community files), at its root.
const (
	OrgPolicyRepo = ".github"
	OrgPolicyPath = pipeline.OrgPolicyFile
)

// OrgPolicyCache keeps each owner's policy for TTL across runs (the App's
// evaluations), so that reading it costs one API call per owner per TTL,
// not one per evaluation; a read that failed is not kept. Safe for
// concurrent use. The zero TTL means DefaultOrgPolicyTTL.
type OrgPolicyCache struct {
	TTL time.Duration
	mu  sync.Mutex
	m   map[string]orgPolicyEntry
}

// DefaultOrgPolicyTTL is how long an owner's policy is kept: a change to
// it applies within this time.
const DefaultOrgPolicyTTL = 5 * time.Minute

type orgPolicyEntry struct {
	data  []byte
	found bool
	at    time.Time
}

func (c *OrgPolicyCache) get(owner string, now time.Time) (orgPolicyEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ttl := c.TTL
	if ttl <= 0 {
		ttl = DefaultOrgPolicyTTL
	}
	e, ok := c.m[owner]
	if !ok || now.Sub(e.at) >= ttl || now.Before(e.at) {
		return orgPolicyEntry{}, false
	}
	return e, true
}

func (c *OrgPolicyCache) put(owner string, e orgPolicyEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]orgPolicyEntry{}
	}
	c.m[owner] = e
}

// OrgPolicy is the pipeline's reader of the owner's policy of repo
// through api, read once and kept in cache: swarm-gate.yml in the default
// branch of the owner's `.github` repository (policy-bot's convention),
// for a base commit with no .github/swarm-gate.yml. Nil (no owner's
// policy) when cache or api is nil, or config names another file.
func OrgPolicy(cache *OrgPolicyCache, api Contents, repo ghapi.Repo, config string) pipeline.OrgPolicy {
	if cache == nil || config != "" || api == nil || repo.Owner == "" {
		return nil
	}
	org := ghapi.Repo{Owner: repo.Owner, Name: OrgPolicyRepo}
	source := org.String() + ": " + OrgPolicyPath
	var m struct {
		once  sync.Once
		data  []byte
		found bool
		err   error
	}
	return func(ctx context.Context) ([]byte, string, bool, error) {
		m.once.Do(func() {
			owner := strings.ToLower(org.Owner)
			if e, ok := cache.get(owner, time.Now()); ok {
				m.data, m.found = e.data, e.found
				return
			}
			// The default branch: "" leaves ref out of the request.
			m.data, m.found, m.err = api.FileAt(ctx, org, OrgPolicyPath, "")
			if m.err == nil {
				cache.put(owner, orgPolicyEntry{data: m.data, found: m.found, at: time.Now()})
			}
		})
		return m.data, source, m.found, m.err
	}
}

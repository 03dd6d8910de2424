package actionrun

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

// orgPolicyMemo keeps the owner's policy once read: a session may read the
// policy for an evaluation and again for a command.
type orgPolicyMemo struct {
	once  sync.Once
	data  []byte
	found bool
	err   error
}

// orgPolicy is the pipeline's reader of the owner's policy, or nil when
// the run does not read one (the Action; a config input naming another
// file; no token).
func (ses *session) orgPolicy() pipeline.OrgPolicy {
	cache := ses.r.OrgPolicy
	if cache == nil || ses.s == nil || ses.s.Config != "" || ses.api == nil || ses.repo.Owner == "" {
		return nil
	}
	repo := ghapi.Repo{Owner: ses.repo.Owner, Name: OrgPolicyRepo}
	source := repo.String() + ": " + OrgPolicyPath
	return func(ctx context.Context) ([]byte, string, bool, error) {
		m := &ses.org
		m.once.Do(func() {
			owner := strings.ToLower(repo.Owner)
			if e, ok := cache.get(owner, time.Now()); ok {
				m.data, m.found = e.data, e.found
				return
			}
			// The default branch: "" leaves ref out of the request.
			m.data, m.found, m.err = ses.api.FileAt(ctx, repo, OrgPolicyPath, "")
			if m.err == nil {
				cache.put(owner, orgPolicyEntry{data: m.data, found: m.found, at: time.Now()})
			}
		})
		return m.data, source, m.found, m.err
	}
}

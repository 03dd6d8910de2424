package actionrun

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/swarm-gate/swarm-gate/internal/actions"
	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// apiURL is GITHUB_API_URL (default https://api.github.com), checked as
// the GitHub client will use it: a URL that is not GitHub's REST API root
// (the web site https://github.com, another path, another scheme, a query)
// is a usage error that names the variable and says why.
func apiURL(env actions.Env) (string, error) {
	raw := env.Get("GITHUB_API_URL")
	u, err := env.APIURL()
	if err == nil {
		err = ghapi.CheckBaseURL(u)
	} else if berr := ghapi.CheckBaseURL(raw); berr != nil {
		err = berr
	}
	if err == nil {
		return u, nil
	}
	why := err.Error()
	var be *ghapi.BaseURLError
	if errors.As(err, &be) {
		why = be.Why
	}
	return "", fmt.Errorf("%w: GITHUB_API_URL %q is not the URL of GitHub's REST API: %s; want %s. The runner sets it; a workflow or container that sets it itself must give the API's root, not the web site", errUsage, raw, why, ghapi.WantBaseURL)
}

// fullReport names where the untruncated report is, for the last line of
// a cut check-run summary: the job summary is cut at 100 findings per
// gate; report.json in the artifact the README's workflow uploads has
// them all. runURL is the workflow run's page ("" when unknown).
func fullReport(runURL string) string {
	full := "report.json of the `swarm-gate-report` artifact of this workflow run"
	if runURL != "" {
		full += " (" + runURL + ")"
	}
	return full
}

// newClient makes the GitHub client for the API at apiURL, its check
// runs' details_url the workflow run's page (of this attempt when the
// runner says which: a re-run's logs are the attempt's), or says why
// there is none (no token).
func newClient(r *Runner, logger *slog.Logger, token, apiURL, runURL string) (API, error) {
	if token == "" {
		return nil, errNoToken
	}
	var opts []ghapi.Option
	if runURL != "" {
		details := runURL
		if a := r.Env.Get("GITHUB_RUN_ATTEMPT"); a != "" {
			details += "/attempts/" + url.PathEscape(a)
		}
		opts = append(opts, ghapi.WithDetailsURL(details))
	}
	opts = append(append(opts, ghapi.WithLogger(logger)), r.ClientOptions...)
	c, err := ghapi.NewClient(apiURL, token, r.HTTPClient, opts...)
	if err != nil {
		// Never a nil *Client in the interface: callers test api == nil.
		return nil, err
	}
	return c, nil
}

// errNoToken is why there is no client when there is no token.
var errNoToken = errors.New("no GitHub token: pass github-token or give the workflow a GITHUB_TOKEN")

var _ API = (*ghapi.Client)(nil)

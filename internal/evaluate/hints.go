package evaluate

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v62/github"

	"github.com/swarm-gate/swarm-gate/internal/ghapi"
)

// PermissionHint is the advice to add to an API error: " (give the
// workflow `permissions: <perm>`)" when GitHub refused the request as
// forbidden or not found (what a token without the permission gets), ""
// for anything else (bad credentials, a server error, a refused
// connection), where more permissions would not help.
func PermissionHint(err error, perm string) string {
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return ""
	}
	switch er.Response.StatusCode {
	case http.StatusForbidden, http.StatusNotFound:
		if ghapi.IsRateLimited(err) {
			return ""
		}
		return " (give the workflow `permissions: " + perm + "`)"
	}
	return ""
}

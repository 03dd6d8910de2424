package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v62/github"
)

// MaxRedeliveries bounds how many deliveries one RedeliverFailed asks
// GitHub to send again.
const MaxRedeliveries = 500

// Redelivered is what RedeliverFailed did.
type Redelivered struct {
	// Listed is the number of delivery attempts of the period read;
	// Failed the deliveries (by GUID) none of whose attempts succeeded;
	// Redelivered those GitHub accepted to send again.
	Listed, Failed, Redelivered int
	// Errors are the redeliveries GitHub refused, one line each.
	Errors []string
}

// RedeliverFailed lists the App's webhook delivery attempts since then
// (GET /app/hook/deliveries, newest first, with the App's JWT) and asks
// GitHub to send again each delivery none of whose attempts succeeded (a
// 2xx answer), once, through its newest attempt (POST
// /app/hook/deliveries/{id}/attempts). It is meant for start-up, to pick
// up what GitHub could not deliver while no replica was up: the
// redeliveries keep their X-GitHub-Delivery, so a replica that did see
// one answers it as a duplicate.
//
// Errors: the list cannot be read (then nothing was redelivered). A
// refused redelivery is counted in Errors, not returned.
func (a *App) RedeliverFailed(ctx context.Context, since time.Time) (Redelivered, error) {
	var out Redelivered
	gh, err := a.auth.appClient()
	if err != nil {
		return out, err
	}
	type attempt struct {
		id  int64
		at  time.Time
		ok  bool
		evt string
	}
	byGUID := map[string]*attempt{} // newest attempt, and whether any succeeded
	var order []string
	opts := &github.ListCursorOptions{PerPage: 100}
list:
	for {
		page, resp, err := gh.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("listing the App's webhook deliveries (GET /app/hook/deliveries): %w", err)
		}
		for _, d := range page {
			at := d.GetDeliveredAt().Time
			if at.Before(since) {
				break list
			}
			out.Listed++
			guid := d.GetGUID()
			ok := d.GetStatusCode() >= 200 && d.GetStatusCode() < 300
			if prev := byGUID[guid]; prev != nil {
				prev.ok = prev.ok || ok
				continue
			}
			byGUID[guid] = &attempt{id: d.GetID(), at: at, ok: ok, evt: d.GetEvent()}
			order = append(order, guid)
		}
		if resp.Cursor == "" || len(page) == 0 {
			break
		}
		opts.Cursor = resp.Cursor
	}
	for _, guid := range order {
		at := byGUID[guid]
		if at.ok {
			continue
		}
		out.Failed++
		if out.Redelivered+len(out.Errors) >= MaxRedeliveries {
			out.Errors = append(out.Errors, fmt.Sprintf("delivery %s (%s): not redelivered, over the limit of %d per start", guid, at.evt, MaxRedeliveries))
			continue
		}
		_, _, err := gh.Apps.RedeliverHookDelivery(ctx, at.id)
		var accepted *github.AcceptedError
		if err != nil && !errors.As(err, &accepted) {
			out.Errors = append(out.Errors, fmt.Sprintf("delivery %s (%s, attempt %d): %v", guid, at.evt, at.id, err))
			continue
		}
		out.Redelivered++
		a.log.Info("asked GitHub to redeliver a failed delivery", "delivery", guid, "event", at.evt, "attempt_id", at.id, "delivered_at", at.at)
	}
	return out, nil
}

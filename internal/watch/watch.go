// Package watch is the one polling loop of the public side: the lookup reloading its index and
// a mirror refreshing its view of a shared store both call a refresh at a fixed interval until
// they are stopped, keeping what they serve when a refresh fails.
package watch

import (
	"context"
	"time"
)

// Every calls refresh every interval until ctx ends. A refresh that fails while ctx is live is
// handed to failed (to log it); the next tick tries again.
func Every(ctx context.Context, interval time.Duration, refresh func(context.Context) error, failed func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := refresh(ctx); err != nil && ctx.Err() == nil {
				failed(err)
			}
		}
	}
}

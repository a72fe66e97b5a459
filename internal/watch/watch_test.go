package watch

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestEvery(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var calls, failures atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Millisecond, func(context.Context) error {
			if calls.Add(1) >= 5 {
				cancel()
				return errors.New("after the stop: not reported")
			}
			return errors.New("refresh failed")
		}, func(error) { failures.Add(1) })
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return after its context ended")
	}
	if c, f := calls.Load(), failures.Load(); c != 5 || f != 4 {
		t.Errorf("%d refreshes, %d failures reported; want 5 and 4 (none once stopped)", c, f)
	}
}

package crawler

import (
	"context"
	"time"

	"github.com/archivectl/archivectl/store"
	"github.com/archivectl/archivectl/store/surt"
)

// StoreArchive is the Archive of an open store: its Seal, and its index for Captured.
func StoreArchive(st *store.Store) Archive { return storeArchive{st} }

type storeArchive struct{ st *store.Store }

func (a storeArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	return a.st.Seal(ctx, caps)
}

// Captured asks the store's index whether rawURL has a capture made at at (to the second).
func (a storeArchive) Captured(_ context.Context, rawURL string, at time.Time) (bool, error) {
	key, err := surt.Key(rawURL)
	if err != nil {
		return false, nil
	}
	found := false
	err = a.st.Index().ByURL(key, func(e store.Entry) error {
		if d := e.Time.Sub(at); e.URL == rawURL && d > -time.Second && d < time.Second {
			found = true
		}
		return nil
	})
	return found, err
}

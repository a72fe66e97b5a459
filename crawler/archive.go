package crawler

import (
	"context"
	"time"

	"github.com/archivectl/archivectl/internal/surt"
	"github.com/archivectl/archivectl/store"
)

// StoreArchive is the Archive of an open store: its Seal, and its index for Captured.
func StoreArchive(st *store.Store) Archive { return storeArchive{st} }

type storeArchive struct{ st *store.Store }

func (a storeArchive) Seal(ctx context.Context, caps []store.Capture) ([]store.Entry, error) {
	return a.st.Seal(ctx, caps)
}

// ReleaseAt is the release time of the sealed capture id, from the store's index.
func (a storeArchive) ReleaseAt(_ context.Context, id string) (time.Time, bool, error) {
	e, ok, err := a.st.Index().Get(id)
	return e.ReleaseAt, ok, err
}

// Captured asks the store's index for rawURL's capture made at at (to the second).
func (a storeArchive) Captured(_ context.Context, rawURL string, at time.Time) (string, error) {
	key, err := surt.Key(rawURL)
	if err != nil {
		return "", nil
	}
	found := ""
	err = a.st.Index().ByURL(key, func(e store.Entry) error {
		if d := e.Time.Sub(at); e.URL == rawURL && d > -time.Second && d < time.Second {
			found = e.ID
		}
		return nil
	})
	return found, err
}

package release

import (
	"fmt"
	"os"

	"github.com/archivectl/archivectl/release/public"
	"github.com/archivectl/archivectl/store/layout"
)

// readState reads public/state.json under dataDir; a missing file is the zero State.
func readState(dataDir string) (public.State, error) {
	s, err := public.ReadState(os.DirFS(layout.Public(dataDir)))
	if err != nil {
		return s, fmt.Errorf("release: %w", err)
	}
	return s, nil
}

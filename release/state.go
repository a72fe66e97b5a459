package release

import (
	"fmt"
	"os"

	"github.com/archivectl/archivectl/internal/layout"
	"github.com/archivectl/archivectl/public"
)

// readStatus reads public/state.json under dataDir; a missing file is the zero Status.
func readStatus(dataDir string) (public.Status, error) {
	s, err := public.ReadStatus(os.DirFS(layout.Public(dataDir)))
	if err != nil {
		return s, fmt.Errorf("release: %w", err)
	}
	return s, nil
}

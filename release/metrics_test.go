package release

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	a := buildArchive(t, t.TempDir(), 12)
	r := newTestReleaser(a.dir)
	reg := prometheus.NewRegistry()
	if err := r.Register(reg); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(8 * 24 * time.Hour)
	s := mustPass(t, r, now)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				got[mf.GetName()] += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				got[mf.GetName()] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				got[mf.GetName()] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	tests := []struct {
		name string
		want float64
	}{
		{"archivectl_release_captures_released_total", float64(s.Released)},
		{"archivectl_release_captures_tombstoned_total", float64(s.Tombstoned)},
		{"archivectl_release_passes_total", 1},
		{"archivectl_release_backlog", 0},
		{"archivectl_release_next_release_timestamp_seconds", float64(s.Next.Unix())},
		{"archivectl_release_last_pass_timestamp_seconds", float64(now.Unix())},
		{"archivectl_release_pass_duration_seconds", 1},
	}
	for _, tc := range tests {
		if v, ok := got[tc.name]; !ok || v != tc.want {
			t.Errorf("%s = %v (present %v), want %v", tc.name, v, ok, tc.want)
		}
	}
	if s.Released == 0 || s.Tombstoned == 0 {
		t.Errorf("the pass released %d and tombstoned %d: the test needs both", s.Released, s.Tombstoned)
	}
	if err := r.Register(prometheus.NewRegistry()); err != nil {
		t.Errorf("registering on a second registry: %v", err)
	}
}

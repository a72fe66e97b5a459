package lookup

import (
	"github.com/prometheus/client_golang/prometheus"
)

// stateCollector exports the release metrics that public/state.json answers, for a lookup that
// runs without a release daemon in its process (passes run by `archivectl release` from a timer):
// the same names the daemon exports, so one alert on a stale last pass serves both set-ups.
type stateCollector struct {
	s                    *Server
	last, next           *prometheus.Desc
	released, tombstoned *prometheus.Desc
}

func newStateCollector(s *Server) *stateCollector {
	return &stateCollector{
		s: s,
		last: prometheus.NewDesc("archivectl_release_last_pass_timestamp_seconds",
			"Unix time (pass now) of the last successful pass, from public/state.json; 0 before the first.", nil, nil),
		next: prometheus.NewDesc("archivectl_release_next_release_timestamp_seconds",
			"Unix time of the next release after the last pass, from public/state.json; 0 when nothing waits.", nil, nil),
		released: prometheus.NewDesc("archivectl_release_captures_released_total",
			"Captures byte-copied into public shards, all passes, from public/state.json.", nil, nil),
		tombstoned: prometheus.NewDesc("archivectl_release_captures_tombstoned_total",
			"Tombstones published for captures under embargo, all passes, from public/state.json.", nil, nil),
	}
}

// Describe sends the metrics' descriptions.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.last
	ch <- c.next
	ch <- c.released
	ch <- c.tombstoned
}

// Collect sends the values of the state.json the loaded index stands on.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.ix.Load().state
	var last, next float64
	if !st.LastPass.IsZero() {
		last = float64(st.LastPass.Unix())
	}
	if st.NextRelease != nil {
		next = float64(st.NextRelease.Unix())
	}
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(c.next, prometheus.GaugeValue, next)
	ch <- prometheus.MustNewConstMetric(c.released, prometheus.CounterValue, float64(st.Released))
	ch <- prometheus.MustNewConstMetric(c.tombstoned, prometheus.CounterValue, float64(st.Tombstoned))
}

package release

import (
	"errors"
	"time"

	"github.com/archivectl/archivectl/internal/lockfile"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the releaser's Prometheus metrics.
type metrics struct {
	released, tombstoned prometheus.Counter
	passes               *prometheus.CounterVec
	backlog, next, last  prometheus.Gauge
	damaged              prometheus.Gauge
	duration             prometheus.Histogram
}

func newMetrics() *metrics {
	return &metrics{
		released: prometheus.NewCounter(prometheus.CounterOpts{Name: "archivectl_release_captures_released_total",
			Help: "Captures byte-copied into public shards."}),
		tombstoned: prometheus.NewCounter(prometheus.CounterOpts{Name: "archivectl_release_captures_tombstoned_total",
			Help: "Tombstones published for captures under embargo."}),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "archivectl_release_passes_total",
			Help: "Release passes by result (ok, busy, error)."}, []string{"result"}),
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{Name: "archivectl_release_backlog",
			Help: "Captures due but not released after the last successful pass."}),
		damaged: prometheus.NewGauge(prometheus.GaugeOpts{Name: "archivectl_release_damaged_captures",
			Help: "Captures due but held back by the last successful pass because a sealed record of theirs is damaged (see archivectl verify)."}),
		next: prometheus.NewGauge(prometheus.GaugeOpts{Name: "archivectl_release_next_release_timestamp_seconds",
			Help: "Unix time of the next release after the last pass; 0 when nothing waits."}),
		last: prometheus.NewGauge(prometheus.GaugeOpts{Name: "archivectl_release_last_pass_timestamp_seconds",
			Help: "Unix time (pass now) of the last successful pass."}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "archivectl_release_pass_duration_seconds",
			Help: "Wall time of release passes.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
	}
}

// Register adds the releaser's metrics to reg: captures released and tombstoned, passes by
// result, backlog of due-but-unreleased captures, captures held back as damaged, next release
// time, last pass, pass duration.
func (r *Releaser) Register(reg prometheus.Registerer) error {
	m := r.met
	for _, c := range []prometheus.Collector{m.released, m.tombstoned, m.passes, m.backlog, m.damaged, m.next, m.last, m.duration} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// observe records one pass; backlog < 0 means unknown.
func (m *metrics) observe(now time.Time, s Summary, backlog int, err error) {
	m.released.Add(float64(s.Released))
	m.tombstoned.Add(float64(s.Tombstoned))
	m.duration.Observe(s.Duration.Seconds())
	switch {
	case errors.Is(err, lockfile.ErrBusy):
		m.passes.WithLabelValues("busy").Inc()
		return
	case err != nil:
		m.passes.WithLabelValues("error").Inc()
		return
	}
	m.passes.WithLabelValues("ok").Inc()
	m.last.Set(float64(now.Unix()))
	m.damaged.Set(float64(s.Damaged))
	if backlog >= 0 {
		m.backlog.Set(float64(backlog))
	}
	if s.Next.IsZero() {
		m.next.Set(0)
	} else {
		m.next.Set(float64(s.Next.Unix()))
	}
}

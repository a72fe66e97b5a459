package lookup

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/archivectl/archivectl/public"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the lookup's Prometheus metrics.
type metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	captures   *prometheus.GaugeVec
	generation prometheus.Gauge
	badLines   prometheus.Gauge
	loadTime   prometheus.Gauge
	segments   prometheus.Gauge
	bytes      prometheus.Gauge
	reloads    *prometheus.CounterVec
}

// newMetrics creates the metrics and registers them with reg when it is not nil.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "archivectl_lookup_requests_total", Help: "Lookup HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "archivectl_lookup_request_duration_seconds", Help: "Lookup HTTP request latency by route.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .5, 1},
		}, []string{"route"}),
		captures: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "archivectl_lookup_captures_loaded", Help: "Public captures in the lookup index by state.",
		}, []string{"state"}),
		generation: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "archivectl_lookup_index_generation", Help: "Release generation (state.json) the lookup serves.",
		}),
		badLines: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "archivectl_lookup_malformed_lines", Help: "CDXJ lines left out as malformed when the public index was last rebuilt.",
		}),
		loadTime: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "archivectl_lookup_index_load_seconds", Help: "Time the last opening of the public index took.",
		}),
		segments: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "archivectl_lookup_index_segments", Help: "Segments of the public index open.",
		}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "archivectl_lookup_index_bytes", Help: "Size of the public index's segment files (mapped, read from the page cache).",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "archivectl_lookup_reloads_total", Help: "Index reload attempts by result.",
		}, []string{"result"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.captures, m.generation, m.badLines, m.loadTime, m.segments, m.bytes, m.reloads} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				return nil, fmt.Errorf("lookup metrics registered twice: %w", err)
			}
			return nil, fmt.Errorf("register lookup metrics: %w", err)
		}
	}
	return m, nil
}

// loaded records a freshly loaded index.
func (m *metrics) loaded(ix *index) {
	m.captures.WithLabelValues(public.StateReleased).Set(float64(ix.released))
	m.captures.WithLabelValues(public.StateEmbargoed).Set(float64(ix.embargoed))
	m.generation.Set(float64(ix.generation))
	m.badLines.Set(float64(ix.badLines))
	m.loadTime.Set(ix.loadedIn.Seconds())
	m.segments.Set(float64(ix.set.Segments()))
	m.bytes.Set(float64(ix.set.Bytes()))
	m.reloads.WithLabelValues("ok").Inc()
}

// route wraps h: its count and latency under name (withHeaders gives every answer the security headers).
func (m *metrics) route(name string, h http.HandlerFunc) http.Handler {
	hist := m.latency.WithLabelValues(name)
	codes := m.requests.MustCurryWith(prometheus.Labels{"route": name})
	common := map[int]prometheus.Counter{} // resolved once: no label hashing per request
	for _, c := range []int{200, 204, 206, 302, 400, 404, 405, 451, 500} {
		common[c] = codes.WithLabelValues(strconv.Itoa(c))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h(sw, r)
		if c, ok := common[sw.code]; ok {
			c.Inc()
		} else {
			codes.WithLabelValues(strconv.Itoa(sw.code)).Inc()
		}
		hist.Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

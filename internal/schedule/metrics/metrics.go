// Package metrics is the scheduler's Prometheus metrics (/metrics), its
// health check (/healthz) and the HTTP server that serves them (--listen).
// Every metric lives in a private registry: nothing touches the default one.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
)

// The metrics' names, as scraped.
const (
	RunsTotal            = "retrywise_runs_total"
	FailuresTotal        = "retrywise_failures_total"
	AttemptsTotal        = "retrywise_attempts_total"
	StepDurationSeconds  = "retrywise_step_duration_seconds"
	LastSuccessTimestamp = "retrywise_last_success_timestamp_seconds"
	NextRunTimestamp     = "retrywise_next_run_timestamp_seconds"
)

// UnknownClass is the class label of a failing step that has no class (one
// that failed before its first attempt, such as an unset variable).
const UnknownClass = "unknown"

// DurationBuckets returns the step-duration histogram's upper bounds in
// seconds, from 10 ms (a local command) to 20 min (a long retry schedule).
func DurationBuckets() []float64 {
	return []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200}
}

// Metrics holds the scheduler's metrics in a registry of its own; safe for
// concurrent use.
type Metrics struct {
	reg         *prometheus.Registry
	runs        *prometheus.CounterVec
	failures    *prometheus.CounterVec
	attempts    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	lastSuccess *prometheus.GaugeVec
	nextRun     *prometheus.GaugeVec
}

// New returns the metrics in a new private registry, with the Go runtime's
// and the process's collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: RunsTotal, Help: "Runs of a job, by result (success, failure, cancelled).",
		}, []string{"job", "result"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: FailuresTotal, Help: "Failing steps, by the final failure's class; continue-on-error failures included.",
		}, []string{"job", "class"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: AttemptsTotal, Help: "Attempts made by steps, retries included, by step kind.",
		}, []string{"kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: StepDurationSeconds, Help: "Time a step took, every attempt and wait included, by step kind.",
			Buckets: DurationBuckets(),
		}, []string{"kind"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: LastSuccessTimestamp, Help: "End of the job's last successful run, in Unix seconds.",
		}, []string{"job"}),
		nextRun: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: NextRunTimestamp, Help: "When the job is next scheduled to run, in Unix seconds.",
		}, []string{"job"}),
	}
	m.reg.MustRegister(m.runs, m.failures, m.attempts, m.duration, m.lastSuccess, m.nextRun,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Observe records a finished run: one run by its result; one failure per step
// whose result is failure (continue-on-error ones included, since they still
// failed; skipped and cancelled steps are not failures), labelled with the
// step's class or "unknown"; each step's attempts and, for a step that made
// at least one attempt, its elapsed time; and, for a successful run, its end
// as the job's last success. A nil run is ignored.
func (m *Metrics) Observe(r *report.Run) {
	if r == nil {
		return
	}
	job := r.Run.Job
	m.runs.WithLabelValues(job, string(r.Run.Result)).Inc()
	for _, s := range r.Steps {
		if s == nil {
			continue
		}
		if s.Result == report.Failure {
			class := s.Class.String()
			if s.Class == failure.None {
				class = UnknownClass
			}
			m.failures.WithLabelValues(job, class).Inc()
		}
		if n := s.AttemptCount(); n > 0 {
			m.attempts.WithLabelValues(s.Kind).Add(float64(n))
			m.duration.WithLabelValues(s.Kind).Observe(s.Elapsed.Seconds())
		}
	}
	if r.Run.Result == report.Success {
		m.lastSuccess.WithLabelValues(job).Set(unixSeconds(r.Run.End))
	}
}

// SetNext records when job runs next; the zero time removes the job's series
// (nothing scheduled).
func (m *Metrics) SetNext(job string, t time.Time) {
	if t.IsZero() {
		m.nextRun.DeleteLabelValues(job)
		return
	}
	m.nextRun.WithLabelValues(job).Set(unixSeconds(t))
}

// Handler serves the registry in the Prometheus exposition formats (/metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

func unixSeconds(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

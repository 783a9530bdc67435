package metrics_test

import (
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/retrywise/retrywise/internal/exitcode"
	"github.com/retrywise/retrywise/internal/failure"
	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/schedule/metrics"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func attempts(outcomes ...string) []retry.Attempt {
	out := make([]retry.Attempt, len(outcomes))
	for i, name := range outcomes {
		var class failure.Class // "" is None, a success
		if err := class.UnmarshalText([]byte(name)); err != nil {
			panic(err)
		}
		out[i] = retry.Attempt{N: i + 1, Start: t0, Duration: 100 * time.Millisecond, OK: class == failure.None, Class: class}
	}
	return out
}

// runs are what a scheduler would observe: a recovered transient failure
// next to a policy stop, a successful run with a continue-on-error failure,
// and a step that failed before its first attempt.
func runs() []*report.Run {
	publish := report.NewRun("publish", t0)
	publish.Steps = []*report.Step{
		{ID: "quota", Kind: "http", Result: report.Success, Attempts: attempts("transient", "transient", ""), Elapsed: 31 * time.Second},
		{ID: "post", Kind: "http", Result: report.Failure, Class: failure.Policy, ExitCode: exitcode.Policy, Attempts: attempts("policy"), Elapsed: 200 * time.Millisecond},
		report.Skip("log", "push", report.Skipped, "an earlier step failed", retry.Policy{}),
	}
	publish.Finish(t0.Add(time.Minute), exitcode.Policy, "")

	nightly := report.NewRun("nightly", t0)
	nightly.Steps = []*report.Step{
		{ID: "build", Kind: "exec", Result: report.Success, Attempts: attempts(""), Elapsed: 20 * time.Millisecond},
		{ID: "optional", Kind: "exec", Result: report.Failure, ContinueOnError: true, Class: failure.Structural, ExitCode: exitcode.Structural, Attempts: attempts("structural"), Elapsed: 5 * time.Millisecond},
	}
	nightly.Finish(t0.Add(90*time.Second+500*time.Millisecond), exitcode.OK, "")

	unset := report.NewRun("publish", t0.Add(time.Hour))
	unset.Steps = []*report.Step{report.NotRun("http", "", exitcode.Config, "DEVTO_API_KEY is not set", retry.Policy{})}
	unset.Finish(t0.Add(time.Hour), exitcode.Config, "")
	return []*report.Run{publish, nightly, unset, nil}
}

// serve starts Serve on addr for mux and returns the bound address and the
// log's lines; the server stops with the test.
func serve(t *testing.T, ctx context.Context, addr string, mux http.Handler) (string, <-chan string) {
	t.Helper()
	lines := make(chan string, 16)
	bound, err := metrics.Serve(ctx, addr, mux, func(s string) { lines <- s })
	if err != nil {
		t.Fatalf("Serve(%q): %v", addr, err)
	}
	return bound, lines
}

func get(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func scrape(t *testing.T, bound string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body, h := get(t, "http://"+bound+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// find returns the metric of family name whose labels are exactly labels, or nil.
func find(fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestObserveScrapedOverHTTP(t *testing.T) {
	m := metrics.New()
	for _, r := range runs() {
		m.Observe(r)
	}
	next := t0.Add(30 * time.Minute)
	m.SetNext("publish", next)
	m.SetNext("nightly", t0.Add(24*time.Hour))
	m.SetNext("nightly", time.Time{}) // unscheduled: the series goes

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound, _ := serve(t, ctx, "127.0.0.1:0", metrics.Mux(m, &metrics.Health{}))
	fams := scrape(t, bound)

	type lbl = map[string]string
	const absent = math.MaxFloat64
	tests := []struct {
		name   string
		family string
		typ    dto.MetricType
		labels lbl
		want   float64 // absent: no such series
	}{
		{"failed runs of publish", metrics.RunsTotal, dto.MetricType_COUNTER, lbl{"job": "publish", "result": "failure"}, 2},
		{"successful run of nightly", metrics.RunsTotal, dto.MetricType_COUNTER, lbl{"job": "nightly", "result": "success"}, 1},
		{"no successful run of publish", metrics.RunsTotal, dto.MetricType_COUNTER, lbl{"job": "publish", "result": "success"}, absent},
		{"the policy stop", metrics.FailuresTotal, dto.MetricType_COUNTER, lbl{"job": "publish", "class": "policy"}, 1},
		{"a recovered transient failure is no failure", metrics.FailuresTotal, dto.MetricType_COUNTER, lbl{"job": "publish", "class": "transient"}, absent},
		{"a failure before any attempt is unknown", metrics.FailuresTotal, dto.MetricType_COUNTER, lbl{"job": "publish", "class": "unknown"}, 1},
		{"continue-on-error failures count", metrics.FailuresTotal, dto.MetricType_COUNTER, lbl{"job": "nightly", "class": "structural"}, 1},
		{"http attempts: 3 then 1", metrics.AttemptsTotal, dto.MetricType_COUNTER, lbl{"kind": "http"}, 4},
		{"exec attempts", metrics.AttemptsTotal, dto.MetricType_COUNTER, lbl{"kind": "exec"}, 2},
		{"a skipped step makes no attempt", metrics.AttemptsTotal, dto.MetricType_COUNTER, lbl{"kind": "push"}, absent},
		{"last success of nightly: its end", metrics.LastSuccessTimestamp, dto.MetricType_GAUGE, lbl{"job": "nightly"}, float64(t0.Unix()) + 90.5},
		{"no last success of publish", metrics.LastSuccessTimestamp, dto.MetricType_GAUGE, lbl{"job": "publish"}, absent},
		{"next run of publish", metrics.NextRunTimestamp, dto.MetricType_GAUGE, lbl{"job": "publish"}, float64(next.Unix())},
		{"next run of nightly unset", metrics.NextRunTimestamp, dto.MetricType_GAUGE, lbl{"job": "nightly"}, absent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := find(fams, tt.family, tt.labels)
			if tt.want == absent {
				if got != nil {
					t.Fatalf("%s%v = %v, want no series", tt.family, tt.labels, got)
				}
				return
			}
			if got == nil {
				t.Fatalf("%s%v: no series", tt.family, tt.labels)
			}
			if typ := fams[tt.family].GetType(); typ != tt.typ {
				t.Fatalf("%s is a %v, want %v", tt.family, typ, tt.typ)
			}
			v := got.GetCounter().GetValue()
			if tt.typ == dto.MetricType_GAUGE {
				v = got.GetGauge().GetValue()
			}
			if v != tt.want {
				t.Fatalf("%s%v = %v, want %v", tt.family, tt.labels, v, tt.want)
			}
		})
	}

	hists := []struct {
		kind    string
		count   uint64
		sum     float64
		buckets map[float64]uint64 // cumulative count at upper bound
	}{
		{"http", 2, 31.2, map[float64]uint64{0.1: 0, 0.25: 1, 30: 1, 60: 2, 1200: 2}},
		{"exec", 2, 0.025, map[float64]uint64{0.01: 1, 0.025: 2}},
	}
	for _, tt := range hists {
		t.Run("duration of "+tt.kind, func(t *testing.T) {
			if typ := fams[metrics.StepDurationSeconds].GetType(); typ != dto.MetricType_HISTOGRAM {
				t.Fatalf("%s is a %v", metrics.StepDurationSeconds, typ)
			}
			got := find(fams, metrics.StepDurationSeconds, lbl{"kind": tt.kind})
			if got == nil {
				t.Fatalf("no histogram for %s", tt.kind)
			}
			h := got.GetHistogram()
			if h.GetSampleCount() != tt.count || math.Abs(h.GetSampleSum()-tt.sum) > 1e-9 {
				t.Fatalf("count %d sum %v, want %d %v", h.GetSampleCount(), h.GetSampleSum(), tt.count, tt.sum)
			}
			if n, want := len(h.GetBucket()), len(metrics.DurationBuckets())+1; n != want {
				t.Fatalf("%d buckets, want %d (+Inf included)", n, want)
			}
			tt.buckets[math.Inf(1)] = tt.count
			for _, b := range h.GetBucket() {
				if want, ok := tt.buckets[b.GetUpperBound()]; ok && b.GetCumulativeCount() != want {
					t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
				}
			}
		})
	}
	if find(fams, metrics.StepDurationSeconds, lbl{"kind": "push"}) != nil {
		t.Error("a skipped step's duration was observed")
	}
}

func TestRegistriesArePrivate(t *testing.T) {
	a, b := metrics.New(), metrics.New()
	a.Observe(runs()[0])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound, _ := serve(t, ctx, "127.0.0.1:0", b.Handler())
	fams := scrape(t, bound)
	if f := fams[metrics.RunsTotal]; f != nil && len(f.GetMetric()) > 0 {
		t.Fatalf("a second Metrics sees the first one's runs: %v", f)
	}
	if fams["go_goroutines"] == nil {
		t.Error("no Go runtime metrics")
	}
}

func TestHealthz(t *testing.T) {
	var h metrics.Health
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound, _ := serve(t, ctx, "127.0.0.1:0", metrics.Mux(metrics.New(), &h))
	steps := []struct {
		name     string
		serving  *bool
		wantCode int
		wantBody string
	}{
		{"serving from the start", nil, http.StatusOK, "ok\n"},
		{"shutting down", ptr(false), http.StatusServiceUnavailable, "shutting down\n"},
		{"serving again", ptr(true), http.StatusOK, "ok\n"},
	}
	for _, s := range steps {
		if s.serving != nil {
			h.SetServing(*s.serving)
		}
		code, body, _ := get(t, "http://"+bound+"/healthz")
		if code != s.wantCode || body != s.wantBody {
			t.Errorf("%s: %d %q, want %d %q", s.name, code, body, s.wantCode, s.wantBody)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestListenAddr(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{":9090", "127.0.0.1:9090", ""},
		{":0", "127.0.0.1:0", ""},
		{"0.0.0.0:9090", "0.0.0.0:9090", ""},
		{"127.0.0.1:9090", "127.0.0.1:9090", ""},
		{"[::]:9090", "[::]:9090", ""},
		{"localhost:9090", "localhost:9090", ""},
		{"9090", "", "want HOST:PORT or :PORT"},
		{"", "", "want HOST:PORT or :PORT"},
		{"0.0.0.0", "", "want HOST:PORT or :PORT"},
		{":http", "", "is not a number"},
		{":99999", "", "is not a number"},
		{":-1", "", "is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := metrics.ListenAddr(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ListenAddr(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ListenAddr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestServeRejects(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	busy, _ := serve(t, ctx, "127.0.0.1:0", http.NotFoundHandler())
	tests := []struct{ addr, wantErr string }{
		{"not-an-address", "want HOST:PORT or :PORT"},
		{":port", "is not a number"},
		{busy, "listen on " + busy},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			bound, err := metrics.Serve(ctx, tt.addr, http.NotFoundHandler(), nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Serve(%q) = %q, %v; want an error with %q", tt.addr, bound, err, tt.wantErr)
			}
		})
	}
}

func TestServeBarePortIsLoopback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound, _ := serve(t, ctx, ":0", metrics.Mux(metrics.New(), &metrics.Health{}))
	host, port, err := net.SplitHostPort(bound)
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("Serve(\":0\") bound %q, want 127.0.0.1 and a chosen port", bound)
	}
	if code, _, _ := get(t, "http://"+bound+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz on %s: %d", bound, code)
	}
}

func TestServeShutsDownOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound, lines := serve(t, ctx, "127.0.0.1:0", metrics.Mux(metrics.New(), &metrics.Health{}))
	if got := <-lines; got != "metrics: listening on "+bound {
		t.Fatalf("first log line %q", got)
	}
	if code, _, _ := get(t, "http://"+bound+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz before cancel: %d", code)
	}
	cancel()
	select {
	case got := <-lines:
		if got != "metrics: stopped listening on "+bound {
			t.Fatalf("log after cancel %q", got)
		}
	case <-time.After(metrics.ShutdownTimeout + 5*time.Second):
		t.Fatal("no shutdown after the context was cancelled")
	}
	if c, err := net.Dial("tcp", bound); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after shutdown", bound)
	}
}

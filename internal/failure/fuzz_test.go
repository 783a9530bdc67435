package failure

import (
	"net/http"
	"testing"
	"time"
)

var fuzzTools = []Tool{ToolAuto, ToolGit, ToolCurl, ToolHTTP, ToolExec, ""}

// FuzzFromText: never panics, never nil, class in range, retry iff
// transient, evidence quoted from the input.
func FuzzFromText(f *testing.F) {
	for _, c := range loadCorpus(f) {
		in := c.input()
		f.Add(in.Text, uint8(0), in.ExitCode)
		f.Add(in.Text, uint8(1), in.ExitCode)
		f.Add(in.Text, uint8(2), in.ExitCode)
	}
	f.Add("", uint8(2), 28)
	f.Add("curl: (999999999999) x", uint8(2), -7)
	f.Add(" ! [rejected] a -> b (", uint8(1), 1)
	f.Add("remote: error: GH013: Repository rule violations found for refs/heads/x.\nremote: - y\n", uint8(1), 1)
	f.Fuzz(func(t *testing.T, text string, tool uint8, exit int) {
		fl := FromText(fuzzTools[int(tool)%len(fuzzTools)], text, exit)
		if err := textInvariants(fl, text, exit); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzFromHTTP: the same invariants for responses; evidence is the status
// line, a header, or quoted from the body.
func FuzzFromHTTP(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if c.Kind != "http-response" || c.HTTP == nil {
			continue
		}
		in := c.input()
		for k, v := range c.HTTP.Headers {
			f.Add(in.Status, "", in.Text, k, v)
		}
		f.Add(in.Status, "POST", in.Text, "", "")
	}
	f.Add(429, "GET", "", "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(403, "", "API rate limit exceeded", "X-RateLimit-Remaining", "0")
	f.Add(403, "", "", "x-deny-reason", "host_not_allowed\nsecond line")
	f.Add(0, "", "curl: (6) Could not resolve host: x", "", "")
	f.Fuzz(func(t *testing.T, status int, method, body, key, value string) {
		h := http.Header{}
		if key != "" {
			h[key] = []string{value}
		}
		r := Response{Method: method, Status: status, Header: h, Body: []byte(body), Now: time.Unix(1700000000, 0)}
		fl := FromHTTP(r)
		if err := httpInvariants(fl, r); err != nil {
			t.Fatal(err)
		}
	})
}

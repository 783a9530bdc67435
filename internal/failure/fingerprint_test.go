package failure

import "testing"

// TestCodeKind: the codes one outage turns between are one kind; others
// keep their code.
func TestCodeKind(t *testing.T) {
	for _, tc := range []struct {
		code Code
		want string
	}{
		{CodeTimeout, KindNetwork}, {CodeReset, KindNetwork}, {CodeRefused, KindNetwork}, {CodeDNS, KindNetwork},
		{"curl-28", KindNetwork}, {"http-503", KindServer}, {"http-502", KindServer}, {CodeServiceUnavailable, KindServer},
		{"http-429", KindThrottle}, {CodeRateLimited, KindThrottle}, {CodeThrottled, KindThrottle},
		{"http-404", "http-404"}, {CodeGitNonFastForward, string(CodeGitNonFastForward)}, {"http-5000", "http-5000"},
	} {
		if got := CodeKind(tc.code); got != tc.want {
			t.Errorf("CodeKind(%s) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestFingerprintOf: the step's named host wins; else the first host name
// the failure names; an IP address or a file name is never a target.
func TestFingerprintOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       *Failure
		targets []string
		want    Fingerprint
	}{
		{"step's host", &Failure{Class: Transient, Code: CodeTimeout, Reason: "dial tcp 10.0.0.1:443: i/o timeout"}, []string{"API.Example.com"},
			Fingerprint{Transient, KindNetwork, "api.example.com"}},
		{"IP target skipped", &Failure{Class: Transient, Code: CodeReset, Reason: "read: connection reset"}, []string{"10.1.2.3", "cache.example.org"},
			Fingerprint{Transient, KindNetwork, "cache.example.org"}},
		{"host in reason", &Failure{Class: Transient, Code: CodeDNS, Reason: "could not resolve host registry.npmjs.org"}, nil,
			Fingerprint{Transient, KindNetwork, "registry.npmjs.org"}},
		{"host in evidence, files skipped", &Failure{Class: Transient, Code: CodeTimeout, Reason: "timed out in main.go",
			Evidence: []string{"at /src/lib/client.py line 4", "Get \"https://api.github.com/repos\": context deadline exceeded"}}, nil,
			Fingerprint{Transient, KindNetwork, "api.github.com"}},
		{"only IPs", &Failure{Class: Transient, Code: CodeTimeout, Reason: "dial tcp 192.168.1.10:22: i/o timeout"}, nil,
			Fingerprint{Transient, KindNetwork, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FingerprintOf(tc.f, tc.targets); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

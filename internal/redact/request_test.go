package redact

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAddRequest(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		header http.Header
		in     string // text that quotes the request's values bare
		want   string
	}{
		{"userinfo password", "https://robot:pw-userinfo-1@api.test/x", nil, "auth failed for pw-userinfo-1", "auth failed for ***"},
		{"userinfo user alone is a token", "https://tok-user-only-2@api.test/x", nil, "bad token tok-user-only-2", "bad token ***"},
		{"secret query parameter", "https://api.test/x?access_token=qtok-3&page=2", nil, "token qtok-3 on page 2", "token *** on page 2"},
		{"plain query parameter kept", "https://api.test/x?page=visible-page", nil, "page visible-page", "page visible-page"},
		{"authorization scheme and token", "https://api.test/", http.Header{"Authorization": {"Bearer hdr-tok-4"}}, "got hdr-tok-4", "got ***"},
		{"whole authorization value", "https://api.test/", http.Header{"Authorization": {"Bearer hdr-tok-4"}}, "echo Bearer hdr-tok-4", "echo ***"},
		{"credential-named header", "https://api.test/", http.Header{"X-Api-Key": {"k3y-5"}}, "key was k3y-5", "key was ***"},
		{"plain header kept", "https://api.test/", http.Header{"X-Team": {"platform"}, "Content-Type": {"application/json"}}, "team platform, application/json", "team platform, application/json"},
		{"no URL", "", http.Header{"Private-Token": {"glpat-6"}}, "glpat-6", "***"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u *url.URL
			if tt.url != "" {
				var err error
				if u, err = url.Parse(tt.url); err != nil {
					t.Fatal(err)
				}
			}
			r := New(Options{})
			r.AddRequest(u, tt.header)
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestAddRequestBasicPassword: the password inside an Authorization: Basic
// header (base64 of user:password) is registered, and the pair, so a body
// that echoes either bare is masked.
func TestAddRequestBasicPassword(t *testing.T) {
	for _, tt := range []struct {
		name, scheme, pair, echo string
	}{
		{"password echoed", "Basic", "alice:s3cr3t-Pw", `{"error":"wrong password s3cr3t-Pw"}`},
		{"pair echoed", "Basic", "alice:s3cr3t-Pw", "credentials alice:s3cr3t-Pw rejected"},
		{"lower-case scheme", "basic", "bob:hunter2-xyz", "pw hunter2-xyz"},
		{"password with colon", "Basic", "carol:pa:ss:word", "got pa:ss:word"},
		{"unpadded base64", "Basic", "dave:pw-unpadded1", "got pw-unpadded1"},
		{"password json-escaped", "Basic", "erin:p\u00e4ss-w0rd", `{"pw":"p\u00e4ss-w0rd"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			enc := base64.StdEncoding.EncodeToString([]byte(tt.pair))
			if tt.name == "unpadded base64" {
				enc = strings.TrimRight(enc, "=")
			}
			r := New(Options{})
			r.AddRequest(nil, http.Header{"Authorization": {tt.scheme + " " + enc}})
			_, pw, _ := strings.Cut(tt.pair, ":")
			got := r.String(tt.echo)
			if strings.Contains(got, pw) || strings.Contains(got, `p\u00e4ss`) || !strings.Contains(got, Mask) {
				t.Errorf("String(%q) = %q", tt.echo, got)
			}
		})
	}
}

package failure

import (
	"fmt"
	"net/url"
	"testing"
)

// A redirect refused for its scheme is http-redirect-unsupported-scheme
// however it is wrapped (a client's *url.Error, a caller's %w), never a TLS
// failure.
func TestFromErrorRedirectScheme(t *testing.T) {
	for _, scheme := range []string{"file", "ftp", "data", "gopher", "FILE"} {
		base := &RedirectSchemeError{Scheme: scheme}
		for name, err := range map[string]error{
			"bare":      base,
			"url.Error": &url.Error{Op: "Get", URL: scheme + "://x/y", Err: base},
			"wrapped":   fmt.Errorf("download the log: %w", &url.Error{Op: "Get", URL: "https://api.example/logs", Err: base}),
		} {
			f := FromError(err)
			if f.Class != Structural || f.Code != CodeRedirectScheme {
				t.Errorf("%s %s: %s %s (%s), want structural %s", scheme, name, f.Class, f.Code, f.Reason, CodeRedirectScheme)
			}
		}
	}
}

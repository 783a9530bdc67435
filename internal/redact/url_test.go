package redact

import "testing"

func TestStringURL(t *testing.T) {
	testStrings(t, []stringTest{
		{"url password", "git clone https://x-access-token:tok-1a2b@github.com/o/r.git",
			"git clone https://x-access-token:***@github.com/o/r.git"},
		{"url token as user", "fetching https://tok-1a2b@example.com/x", "fetching https://***@example.com/x"},
		{"url empty password masks user", "https://tok-1a2b:@host/x", "https://***:@host/x"},
		{"url other scheme", "postgres://app:pw-9z@db:5432/x", "postgres://app:***@db:5432/x"},
		{"url ssh user", "ssh://git@github.com/o/r", "ssh://***@github.com/o/r"},
		{"url at in password", "fatal: unable to access 'https://u:p@ss@host/x': 403",
			"fatal: unable to access 'https://u:***@host/x': 403"},
		{"url two on a line", "a=http://u:p1@h1/ b=ftp://t0k@h2", "a=http://u:***@h1/ b=ftp://***@h2"},
		{"url at in path untouched", "https://host:8080/users/@me?x=a@b", "https://host:8080/users/@me?x=a@b"},
		{"url then email untouched", "see https://example.com and mail me@example.com", "see https://example.com and mail me@example.com"},
		{"url empty userinfo untouched", "https://@host/x", "https://@host/x"},
		{"scp-like untouched", "git@github.com:o/r.git", "git@github.com:o/r.git"},
	})
}

func TestURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://x-access-token:ghs_abc@github.com/o/r.git", "https://github.com/o/r.git"},
		{"https://tok@github.com/o/r.git?x=1", "https://github.com/o/r.git?x=1"},
		{"ssh://git@github.com:22/o/r.git", "ssh://github.com:22/o/r.git"},
		{"https://u:p@host", "https://host"},
		{"https://u:p@host?q", "https://host?q"},
		{"https://u:p@host#f", "https://host#f"},
		{"https://:ghs_abc@host/r", "https://host/r"},
		{"https://u:p@ss@host/r", "https://host/r"}, // an unescaped '@' in the password
		{"https://u@[::1]:8080/r", "https://[::1]:8080/r"},
		{"https://u:p%zz@host/r", "https://host/r"}, // url.Parse rejects it
		{"https://github.com/o/r@v1", "https://github.com/o/r@v1"},
		{"https://host/r?u=a@b", "https://host/r?u=a@b"},
		{"https://host/r#a@b", "https://host/r#a@b"},
		{"file:///srv/r@x.git", "file:///srv/r@x.git"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
		{"/srv/git/r@x.git", "/srv/git/r@x.git"},
		{"origin", "origin"},
		{"", ""},
	} {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

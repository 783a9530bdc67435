package redact

import "testing"

func TestStringHeader(t *testing.T) {
	testStrings(t, []stringTest{
		{"bearer", "Authorization: Bearer eyJhbGciOi.x.y", "Authorization: Bearer ***"},
		{"basic lower", "authorization: basic eHg6eXk=", "authorization: basic ***"},
		{"no space after colon", "Authorization:Bearer abc123", "Authorization:Bearer ***"},
		{"no scheme", "Authorization: abc123", "Authorization: ***"},
		{"proxy", "Proxy-Authorization: Basic Zm9vOmJhcg==", "Proxy-Authorization: Basic ***"},
		{"curl verbose crlf", "> Authorization: token abc123\r\n> Accept: */*\r\n",
			"> Authorization: token ***\r\n> Accept: */*\r\n"},
		{"api key", "X-Api-Key: abc", "X-Api-Key: ***"},
		{"private token", "Private-Token: x", "Private-Token: ***"},
		{"other weak names", "Client-Secret: s\nX-Passwd: p\nGit-Credential: c\nDB_PASSWORD: d",
			"Client-Secret: ***\nX-Passwd: ***\nGit-Credential: ***\nDB_PASSWORD: ***"},
		{"trailing blanks kept", "X-Api-Key: abc  \r\n", "X-Api-Key: ***  \r\n"},
		{"cookie", "Cookie: a=1; b=2", "Cookie: ***"},
		{"set-cookie verbose", "< Set-Cookie: sid=xyz; Path=/\r\n", "< Set-Cookie: ***\r\n"},
		{"yaml key", "  github_token: abc123\n  other: v\n", "  github_token: ***\n  other: v\n"},
		{"yaml list", "- api_key: abc123", "- api_key: ***"},
		{"extraheader quoted", "git -c 'http.https://github.com/.extraheader=AUTHORIZATION: basic eHl6dw==' fetch origin",
			"git -c 'http.https://github.com/.extraheader=AUTHORIZATION: basic ***' fetch origin"},
		{"extraheader config", "git config --local http.https://github.com/.extraheader AUTHORIZATION: basic eHl6dw==",
			"git config --local http.https://github.com/.extraheader AUTHORIZATION: basic ***"},
		{"extraheader unquoted", "http.extraheader=AUTHORIZATION: basic eHl6dw==", "http.extraheader=AUTHORIZATION: basic ***"},
		{"curl -H quoted", `curl -sS -H 'Authorization: token abc123' -H "X-Api-Key: k1k1" https://api.example.com/x`,
			`curl -sS -H 'Authorization: token ***' -H "X-Api-Key: ***" https://api.example.com/x`},
		{"curl -H unquoted", "curl -H X-Api-Key:k1k1 https://api.example.com/x", "curl -H X-Api-Key:*** https://api.example.com/x"},
		{"curl --header quoted", `curl --header "Private-Token: glpat-1" https://x`, `curl --header "Private-Token: ***" https://x`},
		{"token in prose untouched", "error: invalid token: unexpected '}'", "error: invalid token: unexpected '}'"},
		{"empty value untouched", "token:\n  nested: 1\n", "token:\n  nested: 1\n"},
		{"plain headers untouched", "Content-Type: application/json\r\nKeep-Alive: timeout=5\r\nAuthor: Jane <jane@example.com>\r\n",
			"Content-Type: application/json\r\nKeep-Alive: timeout=5\r\nAuthor: Jane <jane@example.com>\r\n"},
		{"file:line untouched", "    token_test.go:42: got 1, want 2\nsrc/keymap.c:7:1: warning: x", "    token_test.go:42: got 1, want 2\nsrc/keymap.c:7:1: warning: x"},
		{"timestamps untouched", "2024-01-02T10:22:01Z step 1: ok", "2024-01-02T10:22:01Z step 1: ok"},
		{"idempotent", "Authorization: Bearer ***", "Authorization: Bearer ***"},
	})
}

package redact

// The credentials of an outgoing request, registered before it is sent.

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// AddRequest registers the credentials a request to u with headers h carries, so they are masked wherever they appear;
// of an Authorization: Basic header, the decoded user:password and the password too.
func (r *Redactor) AddRequest(u *url.URL, h http.Header) {
	// An error or a body may echo a credential without the URL or header
	// around it, so the bare values are registered: the URL's password (or
	// its user when there is none: usually a token), and the values of query
	// parameters and headers that the header rule (rule 2) masks in
	// "Name: value" form.
	if u != nil {
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				r.Add(pw)
			} else {
				r.Add(u.User.Username())
			}
		}
		r.addCredentialFields(u.Query())
	}
	r.addCredentialFields(h)
}

// addCredentialFields registers the value of every field the redactor masks
// in "Name: value" form, and its part after a scheme word alone ("Bearer
// TOKEN": the token).
func (r *Redactor) addCredentialFields(fields map[string][]string) {
	for name, vs := range fields {
		for _, v := range vs {
			if line := name + ": " + v; r.String(line) == line {
				continue
			}
			r.Add(v)
			scheme, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
			if !ok {
				continue
			}
			cred = strings.TrimSpace(cred)
			r.Add(cred)
			if strings.EqualFold(scheme, "basic") {
				// The decoded user:password, and the password alone: a body
				// or an error may echo either.
				if pair, pw, ok := basicPair(cred); ok {
					r.Add(pair, pw)
				}
			}
		}
	}
}

// basicPair decodes the credentials of HTTP basic authentication, the
// base64 of user:password (padded or not).
func basicPair(cred string) (pair, password string, ok bool) {
	b, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return "", "", false
		}
	}
	pair = string(b)
	_, password, ok = strings.Cut(pair, ":")
	if !ok || !utf8.ValidString(pair) {
		return "", "", false
	}
	return pair, password, true
}

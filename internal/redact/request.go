package redact

// The credentials of an outgoing request, registered before it is sent.

import (
	"net/http"
	"net/url"
	"strings"
)

// AddRequest registers the credentials a request to u with headers h carries, so they are masked wherever they appear.
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
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				r.Add(cred)
			}
		}
	}
}

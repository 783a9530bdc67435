package redact

// The credentials of a command line, for the messages printed before its
// flags are parsed (usage errors).

import (
	"slices"
	"strings"
)

// secretFlags are the flags whose value is a secret: --mask and --token.
var secretFlags = []string{"mask", "token"}

// userFlags are the flags whose value is "user:password" (curl -u, --user).
var userFlags = []string{"u", "user"}

// ArgSecrets returns the credentials a command line holds, to mask in its usage errors before its flags are parsed.
func ArgSecrets(args []string) []string {
	// The values of --mask and --token, the password of -u/--user
	// USER:PASSWORD, what the pattern rules mask in an argument (URL
	// userinfo, credential headers, token formats, Bearer and Basic
	// credentials), and the value of NAME=VALUE or NAME:VALUE arguments and
	// flag values whose NAME marks a credential (Authorization=Bearer x,
	// X-Api-Key=v). A flag has one or two dashes; its value follows "=" or
	// is the next argument.
	var out []string
	for i, a := range args {
		out = append(out, argCredentials(a)...)
		name, value, ok := flagArg(a)
		if name == "" {
			continue
		}
		if !ok && i+1 < len(args) {
			value, ok = args[i+1], true
		}
		if !ok {
			continue
		}
		out = append(out, argCredentials(value)...)
		switch {
		case slices.Contains(secretFlags, name):
			out = append(out, value)
		case slices.Contains(userFlags, name):
			if _, pw, found := strings.Cut(value, ":"); found {
				out = append(out, pw)
			}
		}
	}
	return out
}

// looksSecret reports whether the argument a holds a credential by the
// rules of ArgSecrets that need no flag name.
func looksSecret(a string) bool { return len(argCredentials(a)) > 0 }

// flagArg splits a flag argument "-name", "--name" or "--name=value"; name
// is "" when a is not a flag.
func flagArg(a string) (name, value string, hasValue bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", "", false
	}
	name = strings.TrimPrefix(a[1:], "-")
	name, value, hasValue = strings.Cut(name, "=")
	return name, value, hasValue
}

// argCredentials returns what the pattern rules mask in a, and the value
// of a NAME=VALUE or NAME:VALUE a whose NAME marks a credential, with the
// credentials after its scheme word.
func argCredentials(a string) []string {
	var out []string
	for _, sp := range scan(emptySnapshot, a, nil) {
		if sp.hi-sp.lo >= MinValueLen {
			out = append(out, a[sp.lo:sp.hi])
		}
	}
	n := 0
	for n < len(a) && n < maxHeaderName && isNameByte(a[n]) {
		n++
	}
	if n == 0 || n == len(a) || a[n] != '=' && a[n] != ':' || classifyName(a[:n]) == plainName {
		return out
	}
	v := strings.TrimSpace(a[n+1:])
	if len(v) >= MinValueLen {
		out = append(out, v)
	}
	if cred := strings.TrimSpace(v[afterScheme(v, 0, len(v)):]); cred != v && len(cred) >= MinValueLen {
		out = append(out, cred)
	}
	return out
}

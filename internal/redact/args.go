package redact

// The credentials of a command line, for the messages printed before its
// flags are parsed (usage errors).

import (
	"regexp"
	"slices"
	"strings"
)

// secretFlags are the flags whose value is a secret: --mask and --token.
var secretFlags = []string{"mask", "token"}

// headerFlags are the flags whose value is a header (-H, --header).
var headerFlags = []string{"H", "header"}

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
		case slices.Contains(headerFlags, name):
			out = append(out, spacedHeader(value)...)
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

// spacedHeader returns the credentials of a header written with a blank
// instead of its colon ("X-Api-Key sekret"), when its name marks a
// credential: the value, and its part after a scheme word.
func spacedHeader(h string) []string {
	name, v, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || strings.ContainsAny(name, ":=") || !CredentialName(name) {
		return nil
	}
	v = strings.TrimSpace(v)
	out := []string{v}
	if _, cred, ok := strings.Cut(v, " "); ok && len(strings.TrimSpace(cred)) >= MinValueLen {
		out = append(out, strings.TrimSpace(cred))
	}
	return out
}

// fileKeyValue finds the key: value pairs of a YAML line, block or flow
// style ({A: x, B: "y"}); a value may be quoted or a flow list.
var fileKeyValue = regexp.MustCompile(`([A-Za-z0-9_.-]+)["']?[ \t]*:(?:[ \t]+("[^"]*"|'[^']*'|\[[^\]]*\]|[^,{}\[\]#]*)|[ \t]*$)`)

// maxFileLine bounds the bytes of a line FileSecrets examines.
const maxFileLine = 4096

// FileSecrets returns the values a job file holds under secret-looking keys
// (credential header names, variable names with TOKEN, SECRET, KEY,
// PASSWORD or CREDENTIAL, and mask: and token:), in block or flow style, so
// that a message quoting the file (a validation error) masks them even when
// the file does not load. It reads the text line by line, without YAML
// parsing: whatever the file holds, its work is linear in its size.
func FileSecrets(src []byte) []string {
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		v = strings.TrimSpace(v)
		if len(v) < MinValueLen || plainSetting(v) {
			return
		}
		out = append(out, v)
		if _, cred, ok := strings.Cut(v, " "); ok && len(strings.TrimSpace(cred)) >= MinValueLen {
			out = append(out, strings.TrimSpace(cred))
		}
	}
	listIndent := -1 // the indentation of a secret key whose block list follows
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimRight(line, "\r")
		if len(line) > maxFileLine {
			line = line[:maxFileLine]
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		trimmed := strings.TrimSpace(line)
		if listIndent >= 0 {
			if item, ok := strings.CutPrefix(trimmed, "- "); ok && indent >= listIndent {
				add(item)
				continue
			}
			if trimmed != "" {
				listIndent = -1
			}
		}
		for _, m := range fileKeyValue.FindAllStringSubmatch(line, -1) {
			if !secretFileKey(m[1]) {
				continue
			}
			v := strings.TrimSpace(m[2])
			switch {
			case v == "":
				listIndent = indent
			case strings.HasPrefix(v, "["):
				for _, item := range strings.Split(strings.Trim(v, "[]"), ",") {
					add(item)
				}
			default:
				add(v)
			}
		}
	}
	return out
}

// secretFileKey reports whether a job file's key holds secrets.
func secretFileKey(k string) bool {
	return k == "mask" || k == "token" || CredentialName(k) || secretEnvName(k)
}

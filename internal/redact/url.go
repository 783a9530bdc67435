package redact

// The URL userinfo rule (rule 1), and URL for a single URL.

import "strings"

// URL returns raw with the userinfo (user and password) of its authority
// removed; text that is not a URL is returned unchanged.
func URL(raw string) string {
	// Cut by hand rather than with url.Parse, so that scp-like remotes and
	// URLs url.Parse rejects come back intact.
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	host := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[host:], "/?#"); j >= 0 {
		end = host + j
	}
	if at := strings.LastIndexByte(raw[host:end], '@'); at >= 0 {
		return raw[:host] + raw[host+at+1:]
	}
	return raw
}

// urlSpans masks the userinfo of scheme://user:password@host URLs.
func urlSpans(s string, dst []span) []span {
	i := 0
	if strings.IndexByte(s, '@') < 0 {
		// No userinfo yet, but a URL ending s may still receive its '@'.
		j := len(s)
		for j > 0 && !isAuthorityEnd(s[j-1]) {
			j--
		}
		if !strings.HasSuffix(s[:j], "://") {
			return dst
		}
		i = j - 3
	}
	for i < len(s) {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		k += i
		i = k + 3
		b := k
		for b > 0 && isSchemeByte(s[b-1]) {
			b--
		}
		for b < k && !isAlpha(s[b]) {
			b++
		}
		if b == k {
			continue
		}
		a := k + 3
		e, at := a, -1
		for e < len(s) && !isAuthorityEnd(s[e]) {
			if s[e] == '@' {
				at = e
			}
			e++
		}
		open := e == len(s)
		i = e
		if at <= a {
			if open && e > a {
				// Its '@' may still arrive: protect it from being split.
				dst = append(dst, span{lo: e, hi: e, from: b, open: true})
			}
			continue
		}
		lo, hi := a, at // no password: the user is the token
		if p := strings.IndexByte(s[a:at], ':'); p >= 0 {
			if a+p+1 < at {
				lo = a + p + 1
			} else {
				hi = a + p
			}
		}
		if lo < hi {
			dst = append(dst, span{lo: lo, hi: hi, from: b, open: open})
		}
	}
	return dst
}

func isSchemeByte(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// isAuthorityEnd reports whether c ends a URL authority in free text.
func isAuthorityEnd(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '<', '>', '`', '\\', 0x7f:
		return true
	}
	return c <= ' '
}

package ghapi

import (
	"fmt"
	"strings"
)

// MaxOwnerLen and MaxRepoLen are the longest account and repository names
// GitHub gives: 39 and 100 characters.
const (
	MaxOwnerLen = 39
	MaxRepoLen  = 100
)

// CheckRepo checks owner and repo against GitHub's name rules before any
// request is built from them: an owner (a user's or an organization's
// login) is 1 to 39 letters, digits, '-' and '_' (an Enterprise Managed
// User's login ends in _SHORTCODE), not starting with '-' or '_'; a
// repository is 1 to 100 letters, digits, '.', '-' and '_', and not "." or
// "..". Anything else ("..", "%2e%2e", a '/', a '?') would send the request,
// and the token, to another endpoint than the repository's.
func CheckRepo(owner, repo string) error {
	if err := checkName(owner, MaxOwnerLen, false); err != nil {
		return fmt.Errorf("invalid repository owner %q: %s (want letters, digits and -, at most %d, not starting with -)", owner, err, MaxOwnerLen)
	}
	if err := checkName(repo, MaxRepoLen, true); err != nil {
		return fmt.Errorf("invalid repository name %q: %s (want letters, digits, '.', '-' and '_', at most %d, not . or ..)", repo, err, MaxRepoLen)
	}
	return nil
}

// ParseRepo parses OWNER/REPO and checks both by CheckRepo.
func ParseRepo(s string) (owner, repo string, err error) {
	owner, repo, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", "", fmt.Errorf("invalid repository %q: want OWNER/REPO", s)
	}
	if err := CheckRepo(owner, repo); err != nil {
		return "", "", err
	}
	return owner, repo, nil
}

// checkName checks one name: its length, its characters ('.' only in a
// repository's), its first one, and the dot names.
func checkName(s string, maxLen int, isRepo bool) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case len(s) > maxLen:
		return fmt.Errorf("%d characters", len(s))
	case isRepo && (s == "." || s == ".."):
		return fmt.Errorf("a dot name")
	case !isRepo && (s[0] == '-' || s[0] == '_'):
		return fmt.Errorf("starts with %q", s[0])
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		case c == '.' && isRepo:
		default:
			return fmt.Errorf("holds %q", c)
		}
	}
	return nil
}

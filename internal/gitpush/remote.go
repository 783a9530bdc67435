package gitpush

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/retrywise/retrywise/internal/execstep"
	"github.com/retrywise/retrywise/internal/failure"
)

// remote is the push's destination, resolved only after a failure.
type remote struct {
	// name is the remote's name or the URL as given; "origin" when git chose the default.
	name string
	// url is the push URL, credentials included: never printed (see redact.URL).
	url string
}

// resolveRemote finds the remote the push went to: the repository argument,
// or git's default for the checked-out branch (branch.<b>.pushRemote,
// remote.pushDefault, branch.<b>.remote, then origin), and its push URL.
func (s *Step) resolveRemote(ctx context.Context) *remote {
	if s.remote != nil {
		return s.remote
	}
	r := &remote{name: s.args.repo}
	if r.name == "" {
		r.name = s.defaultRemote(ctx)
	}
	r.url = r.name
	if out, f := s.git(ctx, false, "remote", "get-url", "--push", r.name); f == nil {
		if u := strings.TrimSpace(out); u != "" {
			r.url = u
		}
	}
	s.remote = r
	return r
}

// defaultRemote applies git's rules for the remote of a push without one.
func (s *Step) defaultRemote(ctx context.Context) string {
	branch, f := s.git(ctx, false, "symbolic-ref", "--quiet", "--short", "HEAD")
	branch = strings.TrimSpace(branch)
	pattern := `^remote\.pushdefault$`
	if f == nil && branch != "" {
		pattern = `^(remote\.pushdefault|branch\.` + regexp.QuoteMeta(branch) + `\.(pushremote|remote))$`
	}
	out, _ := s.git(ctx, false, "config", "--get-regexp", pattern)
	vals := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			vals[strings.ToLower(k)] = v
		}
	}
	b := "branch." + strings.ToLower(branch)
	for _, k := range []string{b + ".pushremote", "remote.pushdefault", b + ".remote"} {
		if v := vals[k]; v != "" {
			return v
		}
	}
	return "origin"
}

// git runs an auxiliary git command (rev-parse, ls-remote, fetch, rebase),
// never on the success path, with the step's environment, directory and
// timeout, in its own process group. With relay, its stderr goes to the
// user. It returns stdout and, when git failed, its classified failure.
func (s *Step) git(ctx context.Context, relay bool, args ...string) (string, *failure.Failure) {
	var out bytes.Buffer
	var errw io.Writer = io.Discard
	if relay {
		errw = s.opts.Stderr
	}
	st, err := execstep.New(execstep.Options{
		Args: append([]string{"git"}, args...), Env: s.env, Dir: s.opts.Dir,
		Stdout: &out, Stderr: errw, Timeout: s.opts.Timeout, KillGrace: s.opts.KillGrace, Tool: failure.ToolGit,
	})
	if err != nil {
		return "", failure.HelperFailed(err)
	}
	if err := st.Attempt(ctx, 1); err != nil {
		return out.String(), failure.FromError(err)
	}
	return out.String(), nil
}

// urlCredentials returns the credentials in a URL's userinfo: the password
// (as written and percent-decoded), or the user when there is no password
// (a token); none for an scp-like remote or a URL without userinfo.
func urlCredentials(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	var creds []string
	if pw, ok := u.User.Password(); ok {
		creds = append(creds, pw)
	} else {
		creds = append(creds, u.User.Username())
	}
	// As written too, when it was percent-encoded.
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			info := rest[:at]
			if _, pw, ok := strings.Cut(info, ":"); ok {
				info = pw
			}
			if info != creds[0] && info != "" {
				creds = append(creds, info)
			}
		}
	}
	return creds
}

package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/sethvargo/go-githubactions"
)

// Log writes the action's workflow commands to the step's log: masks,
// groups, stop-commands and annotations, formatted by go-githubactions.
// Everything but a mask passes through mask first, so a group title or
// an annotation never shows a secret.
type Log struct {
	gh *githubactions.Action
	// mask masks a title or a message; nil means as it is.
	mask func(string) string
	// flush is called before each command, so that it follows what the
	// step's masked writers still hold; nil means none.
	flush func()
	// inActions is true under the runner (GITHUB_ACTIONS=true), the only
	// place where an add-mask line means anything.
	inActions bool
	// endLine ends the line the stream is in the middle of; nil when the
	// stream cannot tell.
	endLine func() error
}

// NewLog returns the log of a step writing to w, under the runner when
// getenv("GITHUB_ACTIONS") is "true"; mask and flush may be nil. When w
// has an EndLine method, each command starts a line of its own.
func NewLog(w io.Writer, getenv Getenv, mask func(string) string, flush func()) *Log {
	if mask == nil {
		mask = func(s string) string { return s }
	}
	l := &Log{
		gh:        githubactions.New(githubactions.WithWriter(w), githubactions.WithGetenv(githubactions.GetenvFunc(getenv))),
		mask:      mask,
		flush:     flush,
		inActions: getenv("GITHUB_ACTIONS") == "true",
	}
	if e, ok := w.(interface{ EndLine() error }); ok {
		l.endLine = e.EndLine
	}
	return l
}

// issue writes one command at the start of a line, turning the toolkit's
// panic on a failed write into an error.
func (l *Log) issue(cmd func(gh *githubactions.Action)) (err error) {
	if l.flush != nil {
		l.flush()
	}
	if l.endLine != nil {
		if err := l.endLine(); err != nil {
			return fmt.Errorf("cannot write to the log: %v", err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot write to the log: %v", r)
		}
	}()
	cmd(l.gh)
	return nil
}

// Mask asks the runner to mask every value from here on (::add-mask::),
// under the runner only: the one line that bypasses the masking writer,
// since a masked add-mask line would mask nothing.
func (l *Log) Mask(values ...string) error {
	if !l.inActions {
		return nil
	}
	for _, v := range values {
		if v == "" {
			continue
		}
		if err := l.issue(func(gh *githubactions.Action) { gh.AddMask(v) }); err != nil {
			return err
		}
	}
	return nil
}

// Group opens a collapsible group titled title; EndGroup closes it.
func (l *Log) Group(title string) error {
	return l.issue(func(gh *githubactions.Action) { gh.Group(l.mask(title)) })
}

// EndGroup closes the open group.
func (l *Log) EndGroup() error {
	return l.issue(func(gh *githubactions.Action) { gh.EndGroup() })
}

// StopCommands stops the runner from reading workflow commands in what
// follows, until resume is called: what a server or a remote wrote cannot
// set an output or mask a value. The resume token is random.
func (l *Log) StopCommands() (resume func() error, err error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(b[:])
	if err := l.issue(func(gh *githubactions.Action) {
		gh.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	}); err != nil {
		return nil, err
	}
	return func() error {
		return l.issue(func(gh *githubactions.Action) { gh.IssueCommand(&githubactions.Command{Name: token}) })
	}, nil
}

// Error annotates the step with one error titled title.
func (l *Log) Error(title, msg string) error {
	return l.issue(func(gh *githubactions.Action) {
		gh.WithFieldsMap(map[string]string{"title": l.mask(title)}).Errorf("%s", l.mask(msg))
	})
}

// Warning annotates the step with one warning titled title.
func (l *Log) Warning(title, msg string) error {
	return l.issue(func(gh *githubactions.Action) {
		gh.WithFieldsMap(map[string]string{"title": l.mask(title)}).Warningf("%s", l.mask(msg))
	})
}

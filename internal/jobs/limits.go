package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/goccy/go-yaml/token"
	"github.com/retrywise/retrywise/internal/expr"
	"github.com/retrywise/retrywise/internal/userfile"
)

// The loader's limits. None is a setting: a job file that needs more is
// not a job file. Each is checked before the work it bounds is done, and
// past it the file is one error naming the limit, at the place that
// crosses it.
const (
	// MaxFileBytes is the largest job file read (256 KiB; a file of 100
	// steps is about 20 KiB). The YAML parser's cost per byte is bounded
	// by the limits below, so this bounds the loader's memory.
	MaxFileBytes = 256 << 10
	// MaxDepth is the deepest nesting of mappings and lists, block and
	// flow (a job file needs about 10). Checked on the tokens, before
	// they are parsed: the parser's time grows with the square of the
	// depth.
	MaxDepth = 64
	// MaxMappingKeys is the most keys one mapping may have. Checked on
	// the tokens: the parser's time grows with the square of a block
	// mapping's keys.
	MaxMappingKeys = 1000
	// MaxAliasNodes is the most nodes aliases may stand for, counted at
	// every use of an alias (a merge key's included): what bounds an
	// alias bomb, where each level uses the one below many times.
	MaxAliasNodes = 100_000
	// MaxExprBytes and MaxExprDepth bound an if: expression: its length
	// and its nesting (parentheses, !, calls, indexes), GitHub's own
	// limits.
	MaxExprBytes = expr.MaxBytes
	MaxExprDepth = expr.MaxDepth
)

// limitFix is the fix of a file over a limit.
const limitFix = "the limits are not settings; see Limits in the README"

// ReadFile reads the job file at path, at most one byte past
// MaxFileBytes: Load reports a longer file without the rest being read.
// ctx stops it, even blocked (a FIFO no one writes, userfile.ReadFile): it
// then returns ctx's cause.
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := userfile.ReadFile(ctx, path, MaxFileBytes)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return b, err
}

// LoadContext is Load, stopped by ctx: when ctx is done before the file
// is loaded it returns at once with ctx's cause as err (the work left is
// bounded by the limits and stops at its next check of ctx).
func LoadContext(ctx context.Context, path string, src []byte, cat Catalog) (*File, Errors, error) {
	if ctx.Err() != nil {
		return nil, nil, context.Cause(ctx)
	}
	type result struct {
		f    *File
		errs Errors
	}
	done := make(chan result, 1)
	go func() {
		f, errs := load(ctx, path, src, cat)
		done <- result{f, errs}
	}()
	select {
	case r := <-done:
		if ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		return r.f, r.errs, nil
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
}

// errStopped is the loader's own error when its context is done.
var errStopped = errors.New("loading stopped")

// sizeError is the error of a file over MaxFileBytes, at its first byte
// past the limit.
func sizeError(path string, src []byte) *Error {
	p := Pos{1, 1}
	for _, c := range src[:MaxFileBytes] {
		if c == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	return &Error{Path: path, Pos: p, Msg: fmt.Sprintf("the file is longer than the limit of %d bytes (256 KiB); nothing was read past it", MaxFileBytes), Fix: "split the jobs into several files; " + limitFix}
}

// level is one open collection while the tokens are scanned.
type level struct {
	// col is a block collection's column; 0 for a flow collection.
	col int
	// seq is true for a list.
	seq bool
	// keys counts a mapping's keys.
	keys int
}

// scanTokens checks the tokens against MaxDepth and MaxMappingKeys before
// they are parsed: a block collection is known by its column (a list by
// its "- " entries, a mapping by its keys, the tokens before a ":"), a
// flow collection by its brackets. It returns the first limit crossed.
func scanTokens(path string, tks token.Tokens) *Error {
	var stack []level
	line := 0
	var item *token.Token // the token that starts the current item on its line
	atItem := true
	over := func(tk *token.Token, format string, args ...any) *Error {
		return &Error{Path: path, Pos: Pos{tk.Position.Line, tk.Position.Column}, Msg: fmt.Sprintf(format, args...), Fix: limitFix}
	}
	nested := func(tk *token.Token) *Error {
		if len(stack) > MaxDepth {
			return over(tk, "mappings and lists nest deeper than the limit of %d levels", MaxDepth)
		}
		return nil
	}
	key := func(tk *token.Token, l *level) *Error {
		l.keys++
		if l.keys > MaxMappingKeys {
			return over(tk, "a mapping with more keys than the limit of %d", MaxMappingKeys)
		}
		return nil
	}
	flow := func() bool { return len(stack) > 0 && stack[len(stack)-1].col == 0 }
	// block opens or continues the block collection of an item at col.
	block := func(tk *token.Token, col int, seq bool) *Error {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.col > col || top.col == col && top.seq && !seq {
				stack = stack[:len(stack)-1]
				continue
			}
			break
		}
		if n := len(stack); n > 0 && stack[n-1].col == col && stack[n-1].seq == seq {
			if !seq {
				return key(tk, &stack[n-1])
			}
			return nil
		}
		stack = append(stack, level{col: col, seq: seq})
		if !seq {
			stack[len(stack)-1].keys = 1
		}
		return nested(tk)
	}
	for _, tk := range tks {
		if tk.Type == token.CommentType || tk.Position == nil {
			continue
		}
		if tk.Position.Line != line {
			line, atItem = tk.Position.Line, true
		}
		switch tk.Type {
		case token.DocumentHeaderType, token.DocumentEndType:
			stack, atItem = stack[:0], true
			continue
		case token.SequenceStartType, token.MappingStartType:
			l := level{seq: tk.Type == token.SequenceStartType}
			if !l.seq {
				l.keys = 1
			}
			stack = append(stack, l)
			if err := nested(tk); err != nil {
				return err
			}
			atItem = false
			continue
		case token.SequenceEndType, token.MappingEndType:
			if flow() {
				stack = stack[:len(stack)-1]
			}
			atItem = false
			continue
		case token.CollectEntryType:
			if flow() && !stack[len(stack)-1].seq {
				if err := key(tk, &stack[len(stack)-1]); err != nil {
					return err
				}
			}
			continue
		}
		if flow() {
			continue
		}
		switch tk.Type {
		case token.SequenceEntryType, token.MappingKeyType:
			if err := block(tk, tk.Position.Column, tk.Type == token.SequenceEntryType); err != nil {
				return err
			}
			atItem = true
		case token.MappingValueType:
			k := item
			if atItem || k == nil {
				k = tk // ": value" of an explicit key
			}
			if err := block(k, k.Position.Column, false); err != nil {
				return err
			}
			atItem = false
		default:
			if atItem {
				item, atItem = tk, false
			}
		}
	}
	return nil
}

package failure

import "context"

// Team is a team's rules (package teamrules): the first that matches a
// failure decides it, before the built-in recognisers and the
// --retry-on/--stop-on rules.
type Team interface {
	// Decide returns the verdict of the first rule that matches in, or
	// nil when none does. Matching ends with ctx (nil when it never ends).
	Decide(ctx context.Context, in TeamInput) *Failure
}

// TeamInput is what a team rule is matched against.
type TeamInput struct {
	// Tool is the tool the text comes from; Command the command that
	// printed it (its argv[0]), "" when not known.
	Tool    Tool
	Command string
	// Text is the output or the body.
	Text string
	// ExitCode is the exit status; NoExitCode when there is none.
	ExitCode int
	// Status is the HTTP status; 0 when there is none.
	Status int
	// StatusOf reads an HTTP status from the text when none is given (the
	// generic layer's reading); nil when not needed.
	StatusOf func() int
}

// TeamVerdict returns the verdict of in.Rules alone: that of the first
// rule that matches in (its tool, command, text, exit status and HTTP
// status), or nil when none does or in has no rules. Matching ends with
// in.Ctx.
func TeamVerdict(in Input) *Failure {
	if in.Rules == nil {
		return nil
	}
	ro := newRunOpts(in.Env, in.MaxElapsed)
	return decideTeam(in.Ctx, in.Rules, TeamInput{Tool: in.Tool, Command: in.Command, Text: in.Text, ExitCode: in.ExitCode, Status: in.Status, StatusOf: func() int {
		return statusRead(classifyTextRun(in.Tool, in.Text, in.ExitCode, in.Method, ro))
	}})
}

// decideTeam is t's verdict on in; nil when t is nil.
func decideTeam(ctx context.Context, t Team, in TeamInput) *Failure {
	if t == nil {
		return nil
	}
	return t.Decide(ctx, in)
}

// statusRead is the HTTP status a built-in classification read from a
// tool's text: its trace's, or its http-NNN code's.
func statusRead(f *Failure) int {
	if f.Trace.Status != 0 {
		return f.Trace.Status
	}
	return f.Code.HTTPStatus()
}

// IsBuiltinCode reports whether the package declares c (builtin_codes.go,
// without the http-NNN and curl-N families): a team rule may not take it.
func IsBuiltinCode(c Code) bool { return builtinCodes[c] }

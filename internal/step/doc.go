// Package step defines each step kind once: exec, push, http, probe and
// github-quota each have a typed config struct (ExecConfig, PushConfig, …)
// with the shared retry (RetryConfig) and egress (EgressConfig) settings,
// and one field table per struct. The table is the single source of the
// command's flags, the job file's keys, the action's inputs, the job
// file's JSON Schema and the docs' option tables: every surface is
// generated from it, and a validation error names its field (FieldError),
// never a string to be parsed.
//
// A validated config becomes a Prepared step, once; Prepared.Run turns it
// into the attempt adapter the one loop (internal/retry) runs. The package
// holds no timers: every wait is the loop's.
package step

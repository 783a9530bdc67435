package jobs

import (
	"strings"
	"testing"
)

// postStep is an http step named post (lines 7-8) whose field url is an
// output, after quotaStep.
const postStep = "      - id: post\n        http: {url: \"https://y\", field: [\"url=.url\"]}\n"

// scriptStep is an exec step named script (lines 7-8) that declares its
// outputs; bareScript (lines 7-8) declares none.
const (
	scriptStep = "      - id: script\n        exec: {run: \"echo url=x >> $RETRYWISE_OUTPUT\", outputs: [url, post-id]}\n"
	bareScript = "      - id: script\n        exec: {run: \"echo url=x >> $RETRYWISE_OUTPUT\"}\n"
)

// withIf is a third step (lines 9-11) with the condition cond.
func withIf(cond string) string {
	return "      - id: use\n        if: " + cond + "\n        http: {url: \"https://z\"}\n"
}

// withRef is a third step (lines 9-10) whose url holds ref.
func withRef(ref string) string {
	return "      - id: use\n        http: {url: \"https://z/" + ref + "\"}\n"
}

// TestLoadReferences: what validate knows before anything runs. A
// reference to an output a step does not declare (in ${...} by exact
// name, in if: case-blind), to a step that does not exist or runs later,
// and a comparison that can never be true are errors at their position
// with a fix; a reference to a script step without outputs: is a warning,
// and the file still loads.
func TestLoadReferences(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		pos     string // LINE:COL of the finding; "" when the file is clean
		msg     string // a substring of its message
		fix     string // a substring of its fix
		warning bool   // the finding is a warning: the file loads
	}{
		// ${...}: exact names.
		{name: "field output", src: head + quotaStep + postStep + withRef("${steps.post.outputs.url}")},
		{name: "fixed output", src: head + quotaStep + postStep + withRef("${steps.post.outputs.status}")},
		{name: "output case differs in ${}", src: head + quotaStep + postStep + withRef("${steps.post.outputs.URL}"),
			pos: "10:21", msg: `url: ${steps.post.outputs.URL}: step "post" (http) has no output "URL"`, fix: "did you mean url?"},
		{name: "output not declared by a field", src: head + quotaStep + postStep + withRef("${steps.post.outputs.id}"),
			pos: "10:21", msg: `step "post" (http) has no output "id"; its outputs are: status, found, count, url`, fix: "use one of: status, found, count, url"},
		{name: "declared script output", src: head + quotaStep + scriptStep + withRef("${steps.script.outputs.post-id}")},
		{name: "undeclared script output", src: head + quotaStep + scriptStep + withRef("${steps.script.outputs.post_id}"),
			pos: "10:21", msg: `step "script" (exec) has no output "post_id"; its outputs are: url, post-id`, fix: "did you mean post-id?"},
		{name: "script output case differs", src: head + quotaStep + scriptStep + withRef("${steps.script.outputs.Url}"),
			pos: "10:21", msg: `has no output "Url"`, fix: "did you mean url?"},
		{name: "script with an empty outputs:", src: head + quotaStep + "      - id: script\n        exec: {run: \"true\", outputs: []}\n" + withRef("${steps.script.outputs.url}"),
			pos: "10:21", msg: `step "script" (exec) has no output "url"; it declares none`, fix: "add url to step script's outputs:"},
		{name: "script without outputs: in ${}", src: head + quotaStep + bareScript + withRef("${steps.script.outputs.url}"),
			pos: "10:21", msg: `url: ${steps.script.outputs.url}: step "script" (exec) has no outputs: list, so its outputs cannot be checked`, fix: "add outputs: [url] to step script's exec", warning: true},
		{name: "script without outputs: in env", src: head + quotaStep + bareScript + "      - id: use\n        env: {U: \"${steps.script.outputs.url}\"}\n        exec: {run: \"echo $U\"}\n",
			pos: "10:18", msg: `env U: ${steps.script.outputs.url}: step "script" (exec) has no outputs: list`, warning: true},
		// ${...}: steps.
		{name: "no such step", src: head + quotaStep + postStep + withRef("${steps.psot.outputs.url}"),
			pos: "10:21", msg: `url: ${steps.psot.outputs.url} names no earlier step "psot"`, fix: "did you mean post?"},
		{name: "a later step", src: head + quotaStep + withRef("${steps.post.outputs.url}") + postStep,
			pos: "8:21", msg: `names step "post", which runs after this step`, fix: "move the step before this one"},
		// if: names compare case-blind.
		{name: "if: output case differs", src: head + quotaStep + postStep + withIf("steps.post.outputs.URL != ''")},
		{name: "if: script output case differs", src: head + quotaStep + scriptStep + withIf("steps.script.outputs.POST-ID != ''")},
		{name: "if: step id case differs", src: head + quotaStep + postStep + withIf("steps.POST.outputs.Url != ''")},
		{name: "if: step id case differs, wrong output", src: head + quotaStep + postStep + withIf("steps.Post.outputs.uri != ''"),
			pos: "10:13", msg: `if: steps.Post.outputs.uri: step "post" (http) has no output "uri"`, fix: "did you mean url?"},
		{name: "${}: step id case differs", src: head + quotaStep + postStep + withRef("${steps.Post.outputs.url}"),
			pos: "10:21", msg: `names no earlier step "Post"`, fix: "did you mean post?"},
		{name: "if: member case differs", src: head + quotaStep + postStep + withIf("steps.post.Outcome == 'success'")},
		{name: "if: undeclared output", src: head + quotaStep + postStep + withIf("steps.post.outputs.uri != ''"),
			pos: "10:13", msg: `if: steps.post.outputs.uri: step "post" (http) has no output "uri"`, fix: "did you mean url?"},
		{name: "if: script without outputs:", src: head + quotaStep + bareScript + withIf("steps.script.outputs.url != ''"),
			pos: "10:13", msg: `if: steps.script.outputs.url: step "script" (exec) has no outputs: list`, fix: "add outputs: [url]", warning: true},
		{name: "if: a later step", src: head + quotaStep + withIf("steps.post.outputs.url != ''") + postStep,
			pos: "8:13", msg: `if: steps.post names step "post", which runs after this step`},
		// Comparisons that can never be true.
		{name: "outcome success", src: head + quotaStep + postStep + withIf("steps.post.outcome == 'success'")},
		{name: "outcome case-blind", src: head + quotaStep + postStep + withIf(`"'Skipped' != steps.post.outcome"`)},
		{name: "outcome succeeded", src: head + quotaStep + postStep + withIf("steps.post.outcome == 'succeeded'"),
			pos: "10:13", msg: `if: steps.post.outcome == 'succeeded' can never be true: an outcome is success, failure, cancelled or skipped`, fix: "write one of: 'success', 'failure', 'cancelled', 'skipped'"},
		{name: "outcome typo, reversed, !=", src: head + quotaStep + postStep + withIf("success() && 'sucess' != steps['post'].outcome"),
			pos: "10:13", msg: `if: 'sucess' != steps.post.outcome is always true: an outcome is success`, fix: "did you mean 'success'?"},
		{name: "outcome with a number", src: head + quotaStep + postStep + withIf("steps.post.outcome == 0"),
			pos: "10:13", msg: `if: steps.post.outcome == 0 can never be true`},
		{name: "class valid", src: head + quotaStep + postStep + withIf("always() && steps.post.class == 'transient'")},
		{name: "class of a success", src: head + quotaStep + postStep + withIf("steps.post.class == ''")},
		{name: "class typo", src: head + quotaStep + postStep + withIf("steps.post.class == 'transiant'"),
			pos: "10:13", msg: `if: steps.post.class == 'transiant' can never be true: a class is`, fix: "did you mean 'transient'?"},
		{name: "output with false", src: head + quotaStep + postStep + withIf("steps.post.outputs.found == false"),
			pos: "10:13", msg: `if: steps.post.outputs.found == false compares an output, always a string, with the boolean false`, fix: "write 'false'"},
		{name: "output with true, reversed", src: head + quotaStep + postStep + withIf("true != steps.post.outputs.url"),
			pos: "10:13", msg: `if: true != steps.post.outputs.url compares an output, always a string, with the boolean true`, fix: "write 'true'"},
		{name: "output with 'false'", src: head + quotaStep + postStep + withIf("steps.post.outputs.found == 'false'")},
		{name: "output through fromJSON", src: head + quotaStep + postStep + withIf("fromJSON(steps.post.outputs.found) == false")},
		{name: "output with a number", src: head + quotaStep + postStep + withIf("steps.post.outputs.count < 10")},
		{name: "found is a boolean", src: head + quotaStep + postStep + withIf("steps.post.found == false")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, errs := Load("job.yml", []byte(tt.src), fakeCatalog(nil))
			var found Errors
			if f != nil {
				found = f.Warnings
			} else {
				found = errs
			}
			switch {
			case tt.pos == "":
				if len(found) > 0 || f == nil {
					t.Fatalf("want a clean file; got:\n%s", found.Error()+"\n"+fixes(found))
				}
				return
			case tt.warning && f == nil:
				t.Fatalf("want a warning, and the file loaded; got errors:\n%s", errs.Error()+"\n"+fixes(errs))
			case !tt.warning && f != nil:
				t.Fatalf("want an error; the file loaded with warnings:\n%s", found.Error())
			}
			for _, e := range found {
				if e.Pos.String() == tt.pos && strings.Contains(e.Msg, tt.msg) && strings.Contains(e.Fix, tt.fix) {
					if e.Warning != tt.warning {
						t.Errorf("warning %v, want %v", e.Warning, tt.warning)
					}
					return
				}
			}
			t.Errorf("nothing at %s containing %q (fix %q); got:\n%s", tt.pos, tt.msg, tt.fix, found.Error()+"\n"+fixes(found))
		})
	}
}

// TestWarningText: a warning reads "FILE:LINE:COL: warning: message".
func TestWarningText(t *testing.T) {
	var b strings.Builder
	Errors{{Path: "job.yml", Pos: Pos{3, 4}, Msg: "m", Fix: "f", Warning: true}}.WriteText(&b)
	if got, want := b.String(), "job.yml:3:4: warning: m\n  fix: f\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	b.Reset()
	Errors{{Path: "job.yml", Pos: Pos{3, 4}, Msg: "m", Warning: true}}.WriteJSON(&b)
	if got, want := b.String(), `[{"file":"job.yml","line":3,"col":4,"message":"m","fix":"","warning":true}]`+"\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestLoadReferencesRealKinds: the step kinds of internal/step declare
// their outputs to the loader: an http step its fields, an exec step its
// outputs: list; without the list a reference is a warning.
func TestLoadReferencesRealKinds(t *testing.T) {
	const src = "version: 1\njobs:\n  publish:\n    steps:\n" +
		"      - id: post\n        http: {url: \"https://y\", method: POST, field: [\"url=.url\"]}\n" +
		"      - id: record\n        exec: {run: \"echo id=1 >> $RETRYWISE_OUTPUT\", outputs: [id]}\n" +
		"      - id: bare\n        exec: {run: \"true\"}\n" +
		"      - id: use\n        env: {A: \"${steps.post.outputs.url}\", B: \"${steps.record.outputs.id}\", C: \"${steps.bare.outputs.x}\"}\n" +
		"        http: {url: \"https://z/${steps.post.outputs.URL}\"}\n"
	_, errs := Load("job.yml", []byte(src), Steps())
	if len(errs) != 1 || errs[0].Pos.String() != "13:21" || !strings.Contains(errs[0].Msg, `step "post" (http) has no output "URL"`) || errs[0].Fix != "did you mean url?" {
		t.Fatalf("want one error at 13:21 naming URL; got:\n%s", errs.Error()+"\n"+fixes(errs))
	}
	f, errs := Load("job.yml", []byte(strings.Replace(src, "outputs.URL", "outputs.url", 1)), Steps())
	if errs != nil {
		t.Fatalf("errors:\n%s", errs.Error())
	}
	if len(f.Warnings) != 1 || f.Warnings[0].Pos.String() != "12:83" || !strings.Contains(f.Warnings[0].Msg, `step "bare" (exec) has no outputs: list`) {
		t.Errorf("want one warning at 12:83 naming bare; got:\n%s", f.Warnings.Error())
	}
}

// TestLoadScriptReferences: a step reference written in a script that
// the shell runs (run: with the default shell, bash or sh) is never
// expanded there, and the shell fails on it (bad substitution): an error
// that says to pass it through env:. A shell's own ${f}, a script for
// another interpreter and an env: value are fine.
func TestLoadScriptReferences(t *testing.T) {
	tests := []struct {
		name, exec string
		msg, fix   string // "" when clean
	}{
		{name: "an output in run:", exec: `{run: "curl -d ${steps.post.outputs.url} https://x"}`,
			msg: `run: ${steps.post.outputs.url} is not expanded in a script, and the shell fails on it (bad substitution)`, fix: `pass it through the step's env: {NAME: "${steps.post.outputs.url}"} and write "$NAME" in the script`},
		{name: "a workflow expression in run:", exec: `{run: "echo ${{ steps.post.outputs.url }}", shell: bash}`,
			msg: `run: ${{ steps.post.outputs.url }} is not expanded in a script`},
		{name: "an env context in run:", exec: `{run: "echo ${{ env.GREETING }}", shell: sh}`,
			msg: `run: ${{ env.GREETING }} is not expanded in a script`, fix: `write "$GREETING"`},
		{name: "the shell's own", exec: `{run: "for f in *; do echo ${f}; done"}`},
		{name: "another interpreter", exec: "{run: \"console.log(`${steps.x}`)\", shell: \"node {0}\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + quotaStep + postStep + "      - id: use\n        exec: " + tt.exec + "\n"
			f, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
			if tt.msg == "" {
				if f == nil {
					t.Fatalf("errors:\n%s", errs.Error())
				}
				return
			}
			for _, e := range errs {
				if e.Pos.Line == 10 && strings.Contains(e.Msg, tt.msg) && strings.Contains(e.Fix, tt.fix) {
					return
				}
			}
			t.Errorf("no error on line 10 containing %q (fix %q); got:\n%s", tt.msg, tt.fix, errs.Error()+"\n"+fixes(errs))
		})
	}
}

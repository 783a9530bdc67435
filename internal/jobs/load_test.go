package jobs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// head is a valid start of a file whose first job's steps follow.
const head = "version: 1\njobs:\n  publish:\n    steps:\n"

// quotaStep is a valid first step (lines 5-6), an http step named quota.
const quotaStep = "      - id: quota\n        http: {url: \"https://x\"}\n"

// jobWith is a file whose job publish has the job keys keys (indented by
// four, from line 4), then a valid step.
func jobWith(keys string) string {
	return "version: 1\njobs:\n  publish:\n    " + keys + "\n    steps:\n" + quotaStep
}

func TestLoadInvalid(t *testing.T) {
	tests := []struct {
		name string
		src  string
		pos  string // LINE:COL of the error
		msg  string // a substring of its message
		fix  string // a substring of its fix, or ""
	}{
		{name: "unknown top key", src: head + quotaStep + "jbos: {}\n",
			pos: "7:1", msg: `unknown key "jbos" in the top level; allowed: version, defaults, jobs`, fix: "did you mean jobs?"},
		{name: "missing version", src: "jobs:\n  j:\n    steps:\n" + quotaStep,
			pos: "1:1", msg: "missing version:", fix: "version: 1"},
		{name: "version 2", src: "version: 2\njobs:\n  j:\n    steps:\n" + quotaStep,
			pos: "1:10", msg: "version 2 is not supported", fix: "version: 1"},
		{name: "version a string", src: "version: one\njobs:\n  j:\n    steps:\n" + quotaStep,
			pos: "1:10", msg: "version: want the number 1, not a string"},
		{name: "missing jobs", src: "version: 1\n",
			pos: "1:1", msg: "missing jobs:"},
		{name: "jobs empty", src: "version: 1\njobs: {}\n",
			pos: "2:1", msg: "jobs: has no jobs"},
		{name: "jobs null", src: "version: 1\njobs:\n",
			pos: "2:1", msg: "jobs: has no jobs"},
		{name: "jobs a list", src: "version: 1\njobs: [a]\n",
			pos: "2:7", msg: "jobs: want a mapping, not a list"},
		{name: "unknown job key", src: "version: 1\njobs:\n  publish:\n    crn: '@daily'\n    steps:\n" + quotaStep,
			pos: "4:5", msg: `unknown key "crn" in job "publish"; allowed: steps, timeout, env, cron, timezone, start-jitter, catch-up`, fix: "did you mean cron?"},
		{name: "schedule as a job key", src: "version: 1\njobs:\n  publish:\n    schedule: '@daily'\n    steps:\n" + quotaStep,
			pos: "4:5", msg: `unknown key "schedule" in job "publish"`, fix: "the trigger is cron; retry waits are retry.schedule"},
		{name: "cron with six fields", src: jobWith("cron: '0 */5 * * * *'"),
			pos: "4:11", msg: `cron: "0 */5 * * * *": expected exactly 5 fields, found 6`, fix: "five fields"},
		{name: "cron out of range", src: jobWith("cron: '61 * * * *'"),
			pos: "4:11", msg: `cron: "61 * * * *": end of range (61) above maximum (59)`, fix: "@hourly"},
		{name: "cron unknown descriptor", src: jobWith("cron: '@fortnightly'"),
			pos: "4:11", msg: `cron: "@fortnightly": unrecognized descriptor: @fortnightly`, fix: "@every 10m"},
		{name: "cron bad item in a list", src: jobWith("cron: ['@daily', 'every day']"),
			pos: "4:22", msg: `cron: "every day": expected exactly 5 fields, found 2`},
		{name: "cron block list item", src: jobWith("cron:\n      - '@hourly'\n      - '* * * *'"),
			pos: "6:9", msg: `cron: "* * * *": expected exactly 5 fields, found 4`},
		{name: "cron never fires", src: jobWith("cron: '0 0 30 2 *'"),
			pos: "4:11", msg: `cron: "0 0 30 2 *": the expression never fires`, fix: "February 30th"},
		{name: "cron with its own zone", src: jobWith("cron: 'CRON_TZ=Europe/Paris 0 9 * * *'"),
			pos: "4:11", msg: "the expression sets its own zone", fix: "timezone:"},
		{name: "cron every under a second", src: jobWith("cron: '@every 0s'"),
			pos: "4:11", msg: "@every 0s is shorter than the parser's 1s", fix: "@every 10m"},
		{name: "cron every not a duration", src: jobWith("cron: '@every soon'"),
			pos: "4:11", msg: `cron: "@every soon": failed to parse duration @every soon`},
		{name: "cron empty list", src: jobWith("cron: []"),
			pos: "4:11", msg: "cron: has no expressions", fix: "five fields"},
		{name: "cron no value", src: jobWith("cron:"),
			pos: "4:5", msg: "cron: no value"},
		{name: "cron a mapping", src: jobWith("cron: {at: 9}"),
			pos: "4:11", msg: "cron: want a list of strings, not a mapping"},
		{name: "cron ${", src: jobWith("cron: '${WHEN}'"),
			pos: "4:11", msg: "${...} does not expand in a cron expression"},
		{name: "unknown timezone", src: jobWith("cron: '@daily'\n    timezone: Mars/Olympus"),
			pos: "5:15", msg: `timezone: "Mars/Olympus" is not a time zone`, fix: "Europe/Paris"},
		{name: "Local timezone", src: jobWith("cron: '@daily'\n    timezone: Local"),
			pos: "5:15", msg: `timezone: "Local" is not a zone name`, fix: "IANA"},
		{name: "timezone a list", src: jobWith("cron: '@daily'\n    timezone: [UTC]"),
			pos: "5:15", msg: "timezone: want a string, not a list"},
		{name: "negative start-jitter", src: jobWith("cron: '@daily'\n    start-jitter: -1m"),
			pos: "5:19", msg: "start-jitter: must not be negative, got -1m"},
		{name: "start-jitter not a duration", src: jobWith("cron: '@daily'\n    start-jitter: a bit"),
			pos: "5:19", msg: `start-jitter: "a bit" is not a duration`},
		{name: "catch-up not a bool", src: jobWith("cron: '@daily'\n    catch-up: yes"),
			pos: "5:15", msg: `catch-up: want true or false, not "yes"`},
		{name: "timezone without cron", src: jobWith("timezone: UTC"),
			pos: "4:5", msg: `timezone: applies to a scheduled job; job "publish" has no cron:`, fix: "add cron:"},
		{name: "catch-up without cron", src: jobWith("catch-up: true"),
			pos: "4:5", msg: `catch-up: applies to a scheduled job`, fix: "or remove catch-up:"},
		{name: "start-jitter without cron", src: jobWith("start-jitter: 1m"),
			pos: "4:5", msg: `start-jitter: applies to a scheduled job`},
		{name: "job without steps", src: "version: 1\njobs:\n  publish:\n    timeout: 1m\n",
			pos: "3:3", msg: `job "publish" has no steps:`},
		{name: "steps empty", src: "version: 1\njobs:\n  publish:\n    steps: []\n",
			pos: "4:5", msg: "steps: has no steps"},
		{name: "bad timeout", src: "version: 1\njobs:\n  publish:\n    timeout: soon\n    steps:\n" + quotaStep,
			pos: "4:14", msg: `timeout: "soon" is not a duration`},
		{name: "zero timeout", src: "version: 1\njobs:\n  publish:\n    timeout: 0s\n    steps:\n" + quotaStep,
			pos: "4:14", msg: "timeout: must be positive"},
		{name: "timeout of 292 years", src: "version: 1\njobs:\n  publish:\n    timeout: 2562047h\n    steps:\n" + quotaStep,
			pos: "4:14", msg: "timeout: 2562047h is over the limit of 24h"},
		{name: "missing id", src: head + "      - http: {url: \"https://x\"}\n",
			pos: "5:7", msg: "step 1 has no id", fix: "add id:"},
		{name: "duplicate id", src: head + quotaStep + "      - id: quota\n        http: {url: \"https://y\"}\n",
			pos: "7:13", msg: `step id "quota" is already used at 5:13`},
		{name: "bad id", src: head + "      - id: 9lives\n        http: {url: \"https://x\"}\n",
			pos: "5:13", msg: `id "9lives" is not an id`},
		{name: "no kind", src: head + "      - id: quota\n",
			pos: "5:7", msg: `step "quota" has no kind; a step has exactly one of: http, push, exec`},
		{name: "two kinds", src: head + "      - id: quota\n        http: {url: \"https://x\"}\n        push: {args: [origin]}\n",
			pos: "7:9", msg: `step "quota" has two kinds, http and push; a step has exactly one`},
		{name: "unknown step key", src: head + "      - id: quota\n        htp: {url: \"https://x\"}\n",
			pos: "6:9", msg: `unknown key "htp" in step "quota"; allowed: id, if, retry, continue-on-error, env, and one kind: http, push, exec`, fix: "did you mean http?"},
		{name: "unknown kind key", src: head + "      - id: quota\n        http: {url: \"https://x\", methd: GET}\n",
			pos: "6:34", msg: `unknown key "methd" in step "quota" http; allowed: url, method,`, fix: "did you mean method?"},
		{name: "egress key in a step", src: head + "      - id: quota\n        http: {url: \"https://x\", egress-status-url: derived}\n",
			pos: "6:34", msg: "egress-status-url is a run-wide setting, not a step's", fix: "move it under defaults"},
		{name: "egress key at step level", src: head + "      - id: quota\n        egress-canary: [x]\n        http: {url: \"https://x\"}\n",
			pos: "6:9", msg: "egress-canary is a run-wide setting", fix: "defaults"},
		{name: "retry key in a kind", src: head + "      - id: quota\n        http: {url: \"https://x\", schedule: 1s}\n",
			pos: "6:34", msg: "schedule is a retry key", fix: "retry:"},
		{name: "list for a string key", src: head + "      - id: quota\n        http: {url: [\"https://x\"]}\n",
			pos: "6:21", msg: "url: want a string, not a list"},
		{name: "map for a list key", src: head + "      - id: quota\n        http: {url: \"https://x\", header: {a: b}}\n",
			pos: "6:42", msg: "header: want a list of strings, not a mapping"},
		{name: "map in a list", src: head + "      - id: quota\n        http: {url: \"https://x\", header: [a, {b: c}]}\n",
			pos: "6:46", msg: "header: item 2: want a string, not a mapping"},
		{name: "null value", src: head + "      - id: quota\n        http:\n          url:\n",
			pos: "7:11", msg: "url: no value"},
		{name: "bool given yes", src: head + "      - id: quota\n        http: {url: \"https://x\", insecure: yes}\n",
			pos: "6:44", msg: `insecure: want true or false, not "yes"`},
		{name: "continue-on-error given a string", src: head + quotaStep + "        continue-on-error: maybe\n",
			pos: "7:28", msg: `continue-on-error: want true or false, not "maybe"`},
		{name: "int given a word", src: head + "      - id: log\n        push: {args: [origin], rebase-on-reject: once}\n",
			pos: "6:50", msg: `rebase-on-reject: want a whole number, not "once"`},
		{name: "bad duration", src: head + "      - id: quota\n        http: {url: \"https://x\", timeout: 10}\n",
			pos: "6:43", msg: `timeout: "10" is not a duration`},
		{name: "${ in a duration", src: head + "      - id: quota\n        http: {url: \"https://x\", timeout: \"${T}\"}\n",
			pos: "6:43", msg: "timeout: ${...} does not expand in a duration; write the value"},
		{name: "${ in a number", src: head + "      - id: log\n        push: {args: [origin], rebase-on-reject: \"${N}\"}\n",
			pos: "6:50", msg: "rebase-on-reject: ${...} does not expand in a number"},
		{name: "${ in a retry key", src: head + quotaStep + "        retry: {schedule: \"${WAITS}\"}\n",
			pos: "7:27", msg: "schedule: retry keys do not expand ${...}"},
		{name: "retry key unknown", src: head + quotaStep + "        retry: {scheduel: [1s]}\n",
			pos: "7:17", msg: `unknown key "scheduel" in step "quota" retry; allowed: schedule, max-attempts`, fix: "did you mean schedule?"},
		{name: "retry not a mapping", src: head + quotaStep + "        retry: [1s]\n",
			pos: "7:16", msg: `step "quota" retry: want a mapping, not a list`},
		{name: "max-elapsed 0", src: "version: 1\ndefaults:\n  retry: {max-elapsed: 0s}\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:24", msg: "max-elapsed: 0s leaves the retry policy unbounded"},
		{name: "max-attempts negative", src: head + quotaStep + "        retry: {max-attempts: -1}\n",
			pos: "7:31", msg: "max-attempts: -1 is negative; the retry policy would be unbounded"},
		{name: "retry key directly in defaults", src: "version: 1\ndefaults:\n  schedule: [1s]\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:3", msg: "schedule is a retry key; in defaults it goes under retry:"},
		{name: "unknown defaults key", src: "version: 1\ndefaults:\n  secret: [A]\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:3", msg: `unknown key "secret" in defaults; allowed: retry, secrets, persist-after, persist-span, egress-status-url`, fix: "did you mean secrets?"},
		{name: "bad secret name", src: "version: 1\ndefaults:\n  secrets: [OK, not-ok]\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:17", msg: `secrets: "not-ok" is not a variable name`},
		{name: "step ref in defaults", src: "version: 1\ndefaults:\n  egress-status-url: \"${steps.quota.outputs.count}\"\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:22", msg: "names a step's output, but defaults is set before any step runs"},
		{name: "bad if syntax", src: head + quotaStep + "      - id: post\n        if: steps.quota.outcome ==\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: "if: unexpected end of the expression (at 1:23 of the expression)", fix: "complete the expression"},
		{name: "if names an unknown context", src: head + quotaStep + "      - id: post\n        if: github.ref == 'refs/heads/main'\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: unknown name "github" (at 1:1 of the expression)`, fix: "an if: sees steps and env"},
		{name: "if with and", src: head + quotaStep + "      - id: post\n        if: success() and always()\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: "and" is not an operator here (at 1:11 of the expression)`, fix: "write && for and"},
		{name: "if with arithmetic", src: head + quotaStep + "      - id: post\n        if: steps.quota.outputs.count + 1 > 2\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: unexpected "+"`, fix: "no arithmetic"},
		{name: "if calls an unknown function", src: head + quotaStep + "      - id: post\n        if: contain('ab', 'a')\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: unknown function contain()`, fix: "did you mean contains?"},
		{name: "if calls a function with too few arguments", src: head + quotaStep + "      - id: post\n        if: startsWith('ab')\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: startsWith() takes 2 argument(s), not 1`},
		{name: "if names a typo", src: head + quotaStep + "      - id: post\n        if: steps.qouta.outcome == \"success\"\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: steps.qouta names no earlier step "qouta"`, fix: "did you mean quota?"},
		{name: "if names a later step", src: head + quotaStep + "      - id: post\n        if: steps.later.outcome == \"success\"\n        http: {url: \"https://y\"}\n      - id: later\n        http: {url: \"https://z\"}\n",
			pos: "8:13", msg: `if: steps.later names step "later", which runs after this step`},
		{name: "if names the step itself", src: head + quotaStep + "      - id: post\n        if: steps[\"post\"].outcome == \"success\"\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: steps.post names step "post" itself`},
		{name: "if names a hyphenated id with a typo", src: head + "      - id: get-quota\n        http: {url: \"https://x\"}\n      - id: post\n        if: steps.get-quot.outcome == 'success'\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: steps.get-quot names no earlier step "get-quot"`, fix: `did you mean get-quota?`},
		{name: "if unknown field", src: head + quotaStep + "      - id: post\n        if: steps.quota.outcom == \"success\"\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `if: steps.quota.outcom names no field "outcom" of a step; a step has outcome, class, found, outputs`, fix: "did you mean outcome?"},
		{name: "if unknown output", src: head + quotaStep + "      - id: post\n        if: steps.quota.outputs.coutn > 1\n        http: {url: \"https://y\"}\n",
			pos: "8:13", msg: `step "quota" (http) has no output "coutn"`, fix: "did you mean count?"},
		{name: "if empty", src: head + quotaStep + "        if: \"\"\n",
			pos: "7:13", msg: "if: want an expression"},
		{name: "unknown output ref", src: head + quotaStep + "      - id: post\n        http: {url: \"https://y/${steps.quota.outputs.nope}\"}\n",
			pos: "8:21", msg: `url: ${steps.quota.outputs.nope}: step "quota" (http) has no output "nope"; its outputs are: status, found, count`},
		{name: "later output ref", src: head + quotaStep + "      - id: post\n        env: {X: \"${steps.later.outputs.x}\"}\n        http: {url: \"https://y\"}\n      - id: later\n        exec: {run: \"true\"}\n",
			pos: "8:18", msg: `env X: ${steps.later.outputs.x} names step "later", which runs after this step`},
		{name: "unknown step ref", src: head + quotaStep + "      - id: post\n        http: {url: \"https://y\", header: [\"X: ${steps.qoota.outputs.count}\"]}\n",
			pos: "8:43", msg: `header: ${steps.qoota.outputs.count} names no earlier step "qoota"`, fix: "did you mean quota?"},
		{name: "step ref not an output", src: head + quotaStep + "      - id: post\n        http: {url: \"https://y/${steps.quota.outcome}\"}\n",
			pos: "8:21", msg: "${steps.quota.outcome} is not a step output reference", fix: "${steps.quota.outputs.NAME}"},
		{name: "step ref in a job env", src: "version: 1\njobs:\n  publish:\n    env: {C: \"${steps.quota.outputs.count}\"}\n    steps:\n" + quotaStep,
			pos: "4:14", msg: `env C: ${steps.quota.outputs.count} names a step's output, but job "publish" env is set before any step runs`},
		{name: "malformed ${", src: head + "      - id: quota\n        http: {url: \"https://${HOST\"}\n",
			pos: "6:21", msg: `url: malformed ${ at byte 8: "${" without a closing "}"`, fix: "$$"},
		{name: "bad variable name", src: head + "      - id: quota\n        http: {url: \"https://${1HOST}\"}\n",
			pos: "6:21", msg: "url: ${1HOST} is not a reference"},
		{name: "bad env name", src: head + quotaStep + "        env: {my-var: x}\n",
			pos: "7:15", msg: `step "quota" env: "my-var" is not a variable name`},
		{name: "env value a list", src: head + quotaStep + "        env: {A: [x]}\n",
			pos: "7:18", msg: `step "quota" env: A: want a string, not a list`},
		{name: "setting error from Prepare", src: head + "      - id: quota\n        http: {method: GET, url: \"ftp://x\"}\n",
			pos: "6:29", msg: `url "ftp://x" is not an http(s) URL`, fix: "https://"},
		{name: "setting error from Prepare on an inherited retry key", src: "version: 1\ndefaults:\n  retry: {on-unknown: maybe}\njobs:\n  publish:\n    steps:\n" + quotaStep,
			pos: "3:11", msg: "on-unknown must be stop or retry", fix: "stop or retry"},
		{name: "setting error from Prepare with no key", src: head + "      - id: log\n        push:\n",
			pos: "6:9", msg: "push needs args"},
		{name: "setting error from Prepare on a key it does not have", src: head + "      - id: quota\n        http: {url: \"https://x\", method: TRACE}\n",
			pos: "6:9", msg: "TRACE is not allowed", fix: "use GET"},
		{name: "plain error from Prepare", src: head + "      - id: script\n        exec: {run: x, command: [y]}\n",
			pos: "6:9", msg: "exec: give run or command, not both"},
		{name: "duplicate key", src: head + quotaStep + "        id: again\n",
			pos: "7:9", msg: `key "id" is already set at 5:9`},
		{name: "YAML syntax error", src: head + "      - id: quota\n        http: {url: \"https://x\"\n",
			pos: "6:15", msg: "YAML:"},
		{name: "empty file", src: "# nothing\n",
			pos: "1:1", msg: "the file is empty"},
		{name: "not a mapping", src: "- a\n",
			pos: "1:1", msg: "a job file is a mapping"},
		{name: "two documents", src: head + quotaStep + "---\nversion: 1\n",
			pos: "8:1", msg: "a job file is one YAML document"},
		{name: "bad job name", src: "version: 1\njobs:\n  pub lish:\n    steps:\n" + quotaStep,
			pos: "3:3", msg: `job name "pub lish" is not a name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, errs := Load("job.yml", []byte(tt.src), fakeCatalog(nil))
			if f != nil {
				t.Errorf("Load returned a file with errors %v", errs)
			}
			for _, e := range errs {
				if e.Pos.String() == tt.pos && strings.Contains(e.Msg, tt.msg) && strings.Contains(e.Fix, tt.fix) {
					if e.Path != "job.yml" {
						t.Errorf("path %q", e.Path)
					}
					return
				}
			}
			t.Errorf("no error at %s containing %q (fix %q); got:\n%s", tt.pos, tt.msg, tt.fix, errs.Error()+"\n"+fixes(errs))
		})
	}
}

// fixes renders the errors' fixes, for failure messages.
func fixes(errs Errors) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e.Pos.String() + " fix: " + e.Fix + "\n")
	}
	return b.String()
}

func TestLoadReportsEveryErrorInOrder(t *testing.T) {
	src := `version: 2
jobs:
  publish:
    steps:
      - id: quota
        http: {url: "https://x", insecure: yes}
      - id: quota
        http: {url: "https://y", timeout: forever}
        if: steps.qouta.outcome == "success"
extra: 1
`
	_, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
	want := []string{
		"job.yml:1:10: version 2 is not supported; this retrywise reads version 1",
		`job.yml:6:44: insecure: want true or false, not "yes"`,
		`job.yml:7:13: step id "quota" is already used at 5:13`,
		`job.yml:8:43: timeout: "forever" is not a duration`,
		`job.yml:9:13: if: steps.qouta names no earlier step "qouta"`,
		`job.yml:10:1: unknown key "extra" in the top level; allowed: version, defaults, jobs`,
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// example is the job file of the documentation.
const example = `version: 1
defaults:
  retry: {schedule: [10s, 20s, 60s], max-elapsed: 15m, on-unknown: stop}
  egress-status-url: derived
  breaker-threshold: 3
  secrets: [DEVTO_API_KEY]
jobs:
  publish:
    timeout: 20m
    env: {A: "x", N: 5}
    steps:
      - id: quota
        http: {url: "https://dev.to/api/articles/me/published", header: ["api-key: ${DEVTO_API_KEY}"], field: ["count=length"]}
      - id: post
        if: steps.quota.outcome == "success" && steps.quota.outputs.count < 10
        http: {method: POST, url: "https://dev.to/api/articles", data-file: article.json, header: ["api-key: ${DEVTO_API_KEY}", "Idempotency-Key: ${GITHUB_RUN_ID}"], breaker-threshold: 5, fail-on: [500, 502]}
        retry: {max-elapsed: 5m, max-attempts: 2}
      - id: log
        push: {args: [origin, "HEAD:main"], rebase-on-reject: 1}
        retry: {schedule: [2s, 4s, 8s, 16s]}
        continue-on-error: true
        env: {COUNT: "${steps.quota.outputs.count}", PRICE: "$$5"}
      - id: script
        exec:
          run: |
            echo "${f} stays the shell's"
`

func TestLoadValid(t *testing.T) {
	var prepared []Settings
	f, errs := Load("job.yml", []byte(example), fakeCatalog(&prepared))
	if errs != nil {
		t.Fatalf("errors:\n%s", errs.Error())
	}
	if f.Version != 1 || f.Path != "job.yml" || len(f.Jobs) != 1 {
		t.Fatalf("file %+v", f)
	}
	if got := f.Defaults.Secrets; !reflect.DeepEqual(got, []string{"DEVTO_API_KEY"}) {
		t.Errorf("secrets %v", got)
	}
	j := f.Job("publish")
	if j == nil || f.Job("nope") != nil {
		t.Fatalf("Job lookup")
	}
	if j.Pos != (Pos{8, 3}) || j.Timeout.String() != "20m0s" {
		t.Errorf("job pos %v timeout %v", j.Pos, j.Timeout)
	}
	if want := []EnvVar{{"A", "x", Pos{10, 14}}, {"N", "5", Pos{10, 22}}}; !reflect.DeepEqual(j.Env, want) {
		t.Errorf("job env %+v, want %+v", j.Env, want)
	}

	type set struct {
		key  string
		vals []string
		pos  string
	}
	tests := []struct {
		id       string
		pos      string
		kind     string
		kindPos  string
		settings []set
		cont     bool
		hasIf    bool
		env      []EnvVar
	}{
		{id: "quota", pos: "12:7", kind: "http", kindPos: "13:9", settings: []set{
			{"url", []string{"https://dev.to/api/articles/me/published"}, "13:16"},
			{"header", []string{"api-key: ${DEVTO_API_KEY}"}, "13:65"},
			{"field", []string{"count=length"}, "13:104"},
			{"schedule", []string{"10s", "20s", "60s"}, "3:11"},
			{"max-elapsed", []string{"15m"}, "3:38"},
			{"on-unknown", []string{"stop"}, "3:56"},
			{"breaker-threshold", []string{"3"}, "5:3"},
		}},
		{id: "post", pos: "14:7", kind: "http", kindPos: "16:9", hasIf: true, settings: []set{
			{"method", []string{"POST"}, "16:16"},
			{"url", []string{"https://dev.to/api/articles"}, "16:30"},
			{"data-file", []string{"article.json"}, "16:66"},
			{"header", []string{"api-key: ${DEVTO_API_KEY}", "Idempotency-Key: ${GITHUB_RUN_ID}"}, "16:91"},
			{"breaker-threshold", []string{"5"}, "16:167"},
			{"fail-on", []string{"500", "502"}, "16:189"},
			{"schedule", []string{"10s", "20s", "60s"}, "3:11"},
			{"max-elapsed", []string{"5m"}, "17:17"},
			{"on-unknown", []string{"stop"}, "3:56"},
			{"max-attempts", []string{"2"}, "17:34"},
		}},
		{id: "log", pos: "18:7", kind: "push", kindPos: "19:9", cont: true, settings: []set{
			{"args", []string{"origin", "HEAD:main"}, "19:16"},
			{"rebase-on-reject", []string{"1"}, "19:45"},
			{"schedule", []string{"2s", "4s", "8s", "16s"}, "20:17"},
			{"max-elapsed", []string{"15m"}, "3:38"},
			{"on-unknown", []string{"stop"}, "3:56"},
		}, env: []EnvVar{{"COUNT", "${steps.quota.outputs.count}", Pos{22, 22}}, {"PRICE", "$$5", Pos{22, 61}}}},
		{id: "script", pos: "23:7", kind: "exec", kindPos: "24:9", settings: []set{
			{"run", []string{"echo \"${f} stays the shell's\"\n"}, "25:11"},
			{"schedule", []string{"10s", "20s", "60s"}, "3:11"},
			{"max-elapsed", []string{"15m"}, "3:38"},
			{"on-unknown", []string{"stop"}, "3:56"},
		}},
	}
	if len(j.Steps) != len(tests) {
		t.Fatalf("%d steps", len(j.Steps))
	}
	for i, tt := range tests {
		s := j.Steps[i]
		if s.ID != tt.id || s.Pos.String() != tt.pos || s.Kind.Name() != tt.kind || s.KindPos.String() != tt.kindPos {
			t.Errorf("step %d: %s at %v, %s at %v; want %s at %s, %s at %s", i, s.ID, s.Pos, s.Kind.Name(), s.KindPos, tt.id, tt.pos, tt.kind, tt.kindPos)
		}
		if s.ContinueOnError != tt.cont || (s.If != nil) != tt.hasIf || !reflect.DeepEqual(s.Env, tt.env) {
			t.Errorf("step %s: continue %v if %v env %+v", s.ID, s.ContinueOnError, s.If, s.Env)
		}
		var got []set
		for _, st := range s.Settings {
			got = append(got, set{st.Key, st.Values, st.Pos.String()})
		}
		if !reflect.DeepEqual(got, tt.settings) {
			t.Errorf("step %s settings:\n%v\nwant\n%v", s.ID, got, tt.settings)
		}
		if !reflect.DeepEqual(prepared[i], s.Settings) {
			t.Errorf("step %s: Prepare got %v, want %v", s.ID, prepared[i], s.Settings)
		}
	}
	if c := j.Steps[1].If; c.Source != `steps.quota.outcome == "success" && steps.quota.outputs.count < 10` || c.Pos != (Pos{15, 13}) {
		t.Errorf("if %q at %v", c.Source, c.Pos)
	}
	if got := f.Defaults.Run; len(got) != 2 || got[0].Key != "egress-status-url" || got[1].Key != "breaker-threshold" {
		t.Errorf("defaults run %v", got)
	}
	if got := f.Defaults.Retry; len(got) != 3 || got[0].Key != "schedule" {
		t.Errorf("defaults retry %v", got)
	}
}

func TestLoadConversions(t *testing.T) {
	tests := []struct {
		name, value string
		key         string
		want        []string
	}{
		{name: "string", key: "method", value: "POST", want: []string{"POST"}},
		{name: "number as a string", key: "method", value: "0x10", want: []string{"0x10"}},
		{name: "block literal", key: "method", value: "|\n            GET", want: []string{"GET\n"}},
		{name: "stripped block literal", key: "method", value: "|-\n            GET", want: []string{"GET"}},
		{name: "bool", key: "insecure", value: "true", want: []string{"true"}},
		{name: "quoted bool", key: "insecure", value: `"false"`, want: []string{"false"}},
		{name: "int", key: "breaker-threshold", value: "7", want: []string{"7"}},
		{name: "duration", key: "timeout", value: "1m30s", want: []string{"1m30s"}},
		{name: "list", key: "header", value: "[a, b, 3]", want: []string{"a", "b", "3"}},
		{name: "scalar list", key: "header", value: "a", want: []string{"a"}},
		{name: "block list", key: "header", value: "\n          - a\n          - b", want: []string{"a", "b"}},
		{name: "csv list", key: "fail-on", value: "[500, 502, 5xx]", want: []string{"500", "502", "5xx"}},
		{name: "csv string", key: "fail-on", value: "500, 502", want: []string{"500, 502"}},
		{name: "csv number", key: "fail-on", value: "500", want: []string{"500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "      - id: quota\n        http:\n          url: https://x\n          " + tt.key + ": " + tt.value + "\n"
			f, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
			if errs != nil {
				t.Fatalf("errors:\n%s", errs.Error())
			}
			st, ok := f.Jobs[0].Steps[0].Settings.Get(tt.key)
			if !ok || !reflect.DeepEqual(st.Values, tt.want) {
				t.Errorf("%s = %q, want %q", tt.key, st.Values, tt.want)
			}
		})
	}
}

func TestLoadAnchorsAndMerge(t *testing.T) {
	src := `version: 1
x-retry: &slow {schedule: [1m], max-elapsed: 1h}
jobs:
  j:
    steps:
      - id: a
        http: {url: "https://x"}
        retry:
          <<: *slow
          max-elapsed: 2h
`
	// x-retry is not a top-level key: anchors live where they are written.
	_, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
	if len(errs) != 1 || errs[0].Pos != (Pos{2, 1}) {
		t.Fatalf("errors %v", errs)
	}
	src = strings.Replace(src, "x-retry: &slow {schedule: [1m], max-elapsed: 1h}\n", "", 1)
	src = strings.Replace(src, "jobs:\n", "defaults:\n  retry: &slow {schedule: [1m], max-elapsed: 1h}\njobs:\n", 1)
	f, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
	if errs != nil {
		t.Fatalf("errors:\n%s", errs.Error())
	}
	s := f.Jobs[0].Steps[0].Settings
	if me, _ := s.Get("max-elapsed"); me.Values[0] != "2h" {
		t.Errorf("max-elapsed %v", me)
	}
	if sc, _ := s.Get("schedule"); sc.Values[0] != "1m" {
		t.Errorf("schedule %v", sc)
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string // "" for a *FindError
	}{
		{name: "github first", files: []string{".github/retrywise.yml", "retrywise.yml"}, want: ".github/retrywise.yml"},
		{name: "top level", files: []string{"retrywise.yml"}, want: "retrywise.yml"},
		{name: "neither", files: []string{"retrywise.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("version: 1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Find(dir)
			if tt.want == "" {
				fe, ok := err.(*FindError)
				if !ok || len(fe.Tried) != 2 || !strings.Contains(err.Error(), ".github/retrywise.yml") || !strings.Contains(err.Error(), "nor "+filepath.Join(dir, "retrywise.yml")) {
					t.Errorf("Find = %q, %v; want a FindError naming both", got, err)
				}
				return
			}
			if err != nil || got != filepath.Join(dir, filepath.FromSlash(tt.want)) {
				t.Errorf("Find = %q, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestLoadScheduleKeys(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		keys    string // the job keys besides steps, "" for none
		cron    []string
		loc     *time.Location
		jitter  time.Duration
		catchUp bool
	}{
		{name: "not scheduled", loc: time.UTC},
		{name: "a string is a list of one", keys: "cron: '*/5 * * * *'", cron: []string{"*/5 * * * *"}, loc: time.UTC},
		{name: "a list", keys: "cron: ['0 9 * * 1-5', '@every 10m', ' @hourly ']", cron: []string{"0 9 * * 1-5", "@every 10m", "@hourly"}, loc: time.UTC},
		{name: "a block list", keys: "cron:\n      - '@daily'\n      - '30 2 * * *'", cron: []string{"@daily", "30 2 * * *"}, loc: time.UTC},
		{name: "every key", keys: "cron: '@weekly'\n    timezone: Europe/Paris\n    start-jitter: 90s\n    catch-up: true",
			cron: []string{"@weekly"}, loc: paris, jitter: 90 * time.Second, catchUp: true},
		{name: "zero jitter, no catch-up", keys: "cron: '@monthly'\n    start-jitter: 0s\n    catch-up: false", cron: []string{"@monthly"}, loc: time.UTC},
		{name: "timezone UTC", keys: "cron: '@yearly'\n    timezone: UTC", cron: []string{"@yearly"}, loc: time.UTC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + quotaStep
			if tt.keys != "" {
				src = jobWith(tt.keys)
			}
			f, errs := Load("job.yml", []byte(src), fakeCatalog(nil))
			if errs != nil {
				t.Fatalf("errors:\n%s", errs.Error())
			}
			j := f.Job("publish")
			if !reflect.DeepEqual(j.Cron, tt.cron) || j.Location.String() != tt.loc.String() || j.StartJitter != tt.jitter || j.CatchUp != tt.catchUp {
				t.Errorf("cron %q zone %v jitter %v catch-up %v; want %q %v %v %v", j.Cron, j.Location, j.StartJitter, j.CatchUp, tt.cron, tt.loc, tt.jitter, tt.catchUp)
			}
		})
	}
}

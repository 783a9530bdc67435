package cli

import (
	"os"
	"strings"
	"testing"
)

// TestActionScriptAddMask: a run: script's own ::add-mask::VALUE is passed
// to the runner and learned at once: VALUE is in no other line of the log,
// not in the step summary (the script's own part included), the outputs or
// the JSON report; the script's summary is masked like the rest.
func TestActionScriptAddMask(t *testing.T) {
	for _, stream := range []string{"", " >&2"} {
		s := newActionStep(t)
		s.env = append(s.env, "DEPLOY_TOKEN=Env-Secret-V4lue")
		s.inputs["run"] = `echo "::add-mask::Scr1pt-Secret-V4lue"` + stream + `
echo "token is Scr1pt-Secret-V4lue"` + stream + `
echo "### deployed with Scr1pt-Secret-V4lue and $DEPLOY_TOKEN" >> "$GITHUB_STEP_SUMMARY"
echo "detail=Scr1pt-Secret-V4lue" >> "$GITHUB_OUTPUT"
echo "fatal: authentication failed for Scr1pt-Secret-V4lue"` + stream + `
exit 1`
		s.run()
		if s.code == 0 {
			t.Fatalf("exit 0:\n%s", s.stdout)
		}
		log := strings.Replace(strings.Replace(s.stdout, "::add-mask::Scr1pt-Secret-V4lue\n", "", 1), "::add-mask::Env-Secret-V4lue\n", "", 1)
		if !strings.Contains(s.stdout, "::add-mask::Scr1pt-Secret-V4lue\n") {
			t.Errorf("stream %q: the command did not reach the runner:\n%s", stream, s.stdout)
		}
		out := s.outputs()
		rep, _ := os.ReadFile(out["report"])
		for what, text := range map[string]string{"log": log, "summary": s.read(s.summary), "outputs": strings.Join(mapValues(out), "\n"), "report": string(rep)} {
			if strings.Contains(text, "Scr1pt-Secret") || strings.Contains(text, "Env-Secret-V4lue") {
				t.Errorf("stream %q: a secret in the %s:\n%s", stream, what, text)
			}
		}
		if len(rep) == 0 {
			t.Errorf("no JSON report")
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

package cli

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// printedSecret holds what Go's %q and JSON escape ("\"", "\\", "<", "&", a
// control byte) and what base64 writes as "+" and "/".
const printedSecret = "Q7v\"K2m\\X9p<L4w>R8t&Y3b+N6c/J5h\x01F1d?G7s~A2e"

// printedScript prints $API_TOKEN as a tool would: hex (od), base64 of
// user:secret at each of the three alignments in both alphabets (base64),
// cut hex and base64 marked with "...", and Go's %q (given in $QUOTED), then
// fails with all of them on its last line, which the report quotes cut.
const printedScript = `hex=$(printf %s "$API_TOKEN" | od -An -tx1 | tr -d ' \n')
echo "debug: key=$hex"
echo "debug: KEY=$(printf %s "$hex" | tr a-f A-F)" >&2
echo "debug: cut key=$(printf %s "$hex" | cut -c1-21)..."
for u in u us use; do
  echo "blob $(printf '%s:%s' "$u" "$API_TOKEN" | base64 -w0)"
  echo "url blob $(printf '%s:%s' "$u" "$API_TOKEN" | base64 -w0 | tr '+/' '-_' | tr -d =)" >&2
  echo "cut blob $(printf '%s:%s' "$u" "$API_TOKEN" | base64 -w0 | cut -c1-30)..." >&2
done
printf 'config token=%s\n' "$QUOTED" >&2
all="key=$hex"
for u in u us use; do all="$all blob=$(printf '%s:%s' "$u" "$API_TOKEN" | base64 -w0)"; done
printf 'failed: %s %s\n' "$QUOTED" "$all" >&2
exit 3
`

// printedForms returns the texts whose 3-byte pieces must not show: the
// secret, its hex, its %q body, and the part of base64(user:secret) that
// depends on the secret alone, for each user of printedScript.
func printedForms() []string {
	h := hex.EncodeToString([]byte(printedSecret))
	q := strconv.Quote(printedSecret)
	forms := []string{printedSecret, h, strings.ToUpper(h), q[1 : len(q)-1]}
	for _, u := range []string{"u:", "us:", "use:"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
			b := enc.EncodeToString([]byte(u + printedSecret))
			forms = append(forms, b[(8*len(u)+5)/6:(8*(len(u)+len(printedSecret))+5)/6])
		}
	}
	return forms
}

// tempNames are the random names of temporary files a report shows, whose
// digits may hold 3 of a hex or base64 form's by chance.
var tempNames = regexp.MustCompile(`retrywise-run-[0-9]+/script-[0-9]+`)

// checkNoPrinted fails when text shows 3 bytes in a row of a printed form.
func checkNoPrinted(t *testing.T, name, text string) {
	t.Helper()
	text = tempNames.ReplaceAllString(text, "retrywise-run-N/script-N")
	for _, f := range printedForms() {
		for i := 0; i+3 <= len(f); i++ {
			if strings.Contains(text, f[i:i+3]) {
				t.Errorf("%s shows %q of %q:\n%s", name, f[i:i+3], f, text)
				break
			}
		}
	}
}

// TestExecPrintedSecretNeverShown: a real child prints its secret
// hex-encoded, base64 inside user:secret at each alignment (standard and
// URL-safe), cut, and %q-quoted; neither stdout, stderr nor the JSON report
// shows 3 bytes of any of those forms in a row.
func TestExecPrintedSecretNeverShown(t *testing.T) {
	q := strconv.Quote(printedSecret)
	rep := filepath.Join(t.TempDir(), "r.json")
	r := runCLI(t, "", []string{"API_TOKEN=" + printedSecret, "QUOTED=" + q}, "exec", "--report", rep, "--", "sh", "-c", printedScript)
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stderr, "url blob ") || !strings.Contains(r.stdout, "debug: key=") || !strings.Contains(string(b), "blob=") {
		t.Fatalf("the child's lines are not relayed and reported:\n%s\n%s\n%s", r.stdout, r.stderr, b)
	}
	for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "report": string(b)} {
		checkNoPrinted(t, name, text)
	}
}

// TestJobPrintedSecretNeverShown: the same child as a job's exec step; the
// report, the --summary and stderr show none of it.
func TestJobPrintedSecretNeverShown(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "print.sh"), []byte(printedScript), 0o755)
	job := "version: 1\njobs:\n  j:\n    steps:\n      - id: a\n        exec: {run: \"sh ./print.sh\"}\n"
	os.WriteFile(filepath.Join(dir, "retrywise.yml"), []byte(job), 0o644)
	q := strconv.Quote(printedSecret)
	r := jobRun(t, newProc(t, "API_TOKEN="+printedSecret, "QUOTED="+q), dir, "run", "--report", "r.json", "--summary", "s.md")
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	md, _ := os.ReadFile(filepath.Join(dir, "s.md"))
	if !strings.Contains(string(raw), "blob=") || !strings.Contains(string(md), "blob=") {
		t.Fatalf("the child's lines are not reported:\n%s\n%s\n%s", r.stderr, raw, md)
	}
	for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "report": string(raw), "summary": string(md)} {
		checkNoPrinted(t, name, text)
	}
}

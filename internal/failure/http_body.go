package failure

import "strings"

// maxBodyEvidence is how many lines of an answer's body become evidence
// when no recogniser named its error.
const maxBodyEvidence = 3

// bodyEvidence quotes what an error answer says about itself, verbatim,
// for a status whose remedy is "see the message": the first non-empty
// lines of the body (a JSON error is usually one line holding its message
// and errors), or an HTML page's <title>. Nothing for an empty body.
func bodyEvidence(body string) []string {
	body = strings.TrimSpace(body)
	if body == "" {
		return nil
	}
	if strings.HasPrefix(body, "<") {
		lower := strings.ToLower(body)
		i := strings.Index(lower, "<title>")
		if i < 0 {
			return nil
		}
		j := strings.Index(lower[i:], "</title>")
		if j < 0 {
			return nil
		}
		if t := strings.TrimSpace(body[i+len("<title>") : i+j]); t != "" && !strings.ContainsAny(t, "\r\n") {
			return []string{EvidenceLineAt(t, 0)}
		}
		return nil
	}
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, EvidenceLineAt(line, 0))
			if len(out) == maxBodyEvidence {
				break
			}
		}
	}
	return out
}

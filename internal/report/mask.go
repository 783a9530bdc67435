package report

import "strings"

// Mask replaces every text of the run with mask(text), in place: targets,
// reasons, details, evidence, remedies, notes, refs, attempts and string
// outputs (nested ones included). Renderers escape and cut what they print
// (JSON escapes, Markdown cells, the 1 MiB cut), which could split a
// secret past a mask applied to the finished document; masking the model
// first cannot be evaded that way.
func (r *Run) Mask(mask func(string) string) {
	r.Run.Job, r.Run.Detail = mask(r.Run.Job), mask(r.Run.Detail)
	for _, s := range r.Steps {
		s.Mask(mask)
	}
}

// Mask replaces every text of the step with mask(text), in place.
func (s *Step) Mask(mask func(string) string) {
	s.Target, s.Reason, s.Detail, s.Remedy = mask(s.Target), mask(s.Reason), mask(s.Detail), mask(s.Remedy)
	for i := range s.Evidence {
		s.Evidence[i] = mask(s.Evidence[i])
	}
	for i := range s.Notes {
		s.Notes[i] = mask(s.Notes[i])
	}
	for i := range s.Refs {
		s.Refs[i].From, s.Refs[i].To, s.Refs[i].Reason = mask(s.Refs[i].From), mask(s.Refs[i].To), mask(s.Refs[i].Reason)
	}
	for i := range s.Attempts {
		s.Attempts[i].Reason, s.Attempts[i].Recheck = mask(s.Attempts[i].Reason), mask(s.Attempts[i].Recheck)
	}
	for k, v := range s.Outputs {
		s.Outputs[k] = maskValue(v, mask)
	}
}

// maskValue masks the strings of a JSON-like value.
func maskValue(v any, mask func(string) string) any {
	switch v := v.(type) {
	case string:
		return mask(v)
	case []any:
		for i := range v {
			v[i] = maskValue(v[i], mask)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = maskValue(e, mask)
		}
	case []Ref:
		for i := range v {
			v[i].From, v[i].To, v[i].Reason = mask(v[i].From), mask(v[i].To), mask(v[i].Reason)
		}
	}
	return v
}

// MaskedJSON returns the run's JSON report as every file of it is written
// (run --report, a schedule's history, the action's report file): its texts
// masked (Mask), rendered, then the rendered document masked once more, so
// that what only the whole document shows (a secret as an object key, a
// credential field of a JSON body carried as a value) is masked too.
func (r *Run) MaskedJSON(mask func(string) string) []byte {
	r.Mask(mask)
	var b strings.Builder
	r.WriteJSON(&b)
	return []byte(mask(b.String()))
}

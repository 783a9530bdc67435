package jobs

import (
	"context"
	"sync"

	"github.com/retrywise/retrywise/internal/report"
	"github.com/retrywise/retrywise/internal/retry"
	"github.com/retrywise/retrywise/internal/step"
)

// Steps is the catalog of the step kinds (internal/step): every kind, the
// retry keys and the run-wide keys of defaults, all from the kinds' one
// field table. It is built once.
func Steps() Catalog { return steps() }

var steps = sync.OnceValue(func() Catalog {
	cat := Catalog{Retry: step.RetryFields(), Run: step.RunFields()}
	for _, k := range step.Kinds() {
		cat.Kinds = append(cat.Kinds, StepKind(k))
	}
	return cat
})

// StepKind is a step kind of internal/step as a job file's Kind.
func StepKind(k *step.Kind) Kind {
	return &stepKind{k: k, keys: k.KeyFields()}
}

type stepKind struct {
	k    *step.Kind
	keys []*step.Field
}

func (s *stepKind) Name() string        { return s.k.Name }
func (s *stepKind) Keys() []*step.Field { return s.keys }
func (s *stepKind) Expands() bool       { return s.k.Expands }

// Outputs are what a step with the settings st declares (step.Kind.StepOutputs).
func (s *stepKind) Outputs(st Settings) ([]string, bool) {
	return s.k.StepOutputs(func(name string) ([]string, bool) {
		v, ok := st.Get(name)
		return v.Values, ok
	})
}

// Prepare sets every setting on a fresh config of the kind and validates
// it; its errors are *step.FieldError naming the key.
func (s *stepKind) Prepare(ctx context.Context, settings Settings) (Prepared, error) {
	c := s.k.New()
	fields := c.Fields()
	var errs []error
	for _, st := range settings {
		f := step.Lookup(fields, st.Key)
		if f == nil {
			continue // a kind without retries (probe) ignores defaults.retry
		}
		if err := f.SetValues(st.Values); err != nil {
			errs = append(errs, settingError(err))
		}
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	p, err := step.Prepare(ctx, s.k, c)
	if err != nil {
		for _, fe := range step.FieldErrors(err) {
			errs = append(errs, settingError(fe))
		}
		return nil, joinErrors(errs)
	}
	return &stepPrepared{p: p}, nil
}

// settingError is a field's error as a key's: its value, when quoted,
// leads the message.
func settingError(err error) error {
	fes := step.FieldErrors(err)
	if len(fes) == 0 {
		return err
	}
	fe := fes[0]
	msg := fe.Msg
	if fe.Value != "" {
		msg = fe.Value + ": " + msg
	}
	return &step.FieldError{Field: fe.Field, Msg: msg, Fix: fe.Fix}
}

// stepPrepared is a prepared step of internal/step (Prepared).
type stepPrepared struct{ p *step.Prepared }

func (s *stepPrepared) Policy() retry.Policy { return s.p.Policy() }
func (s *stepPrepared) Target() string       { return s.p.Target() }

// Step is the prepared step of internal/step.
func (s *stepPrepared) Step() *step.Prepared { return s.p }

// Run runs the step with the run's services and the step's streams.
func (s *stepPrepared) Run(ctx context.Context, svc *step.Services, io *step.IO) *report.Step {
	return s.p.Run(ctx, svc, io)
}

package egress

import (
	"context"
	"sync"
)

// maxParallelProbes bounds the targets ProbeAll asks about at once.
const maxParallelProbes = 8

// ProbeAll asks about every target as ProbeAs does, at most eight at once, and returns the results in the targets' order.
func (p *Prober) ProbeAll(ctx context.Context, client Client, targets []Target) []*Result {
	return p.ProbeAllIn(ctx, nil, client, targets)
}

// ProbeAllIn is ProbeAll with the proxies found in env (a job step's
// environment); nil means the prober's (Options.Env).
func (p *Prober) ProbeAllIn(ctx context.Context, env []string, client Client, targets []Target) []*Result {
	if env == nil {
		env = p.opts.Env
	}
	results := make([]*Result, len(targets))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxParallelProbes)
	for i, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = p.probeWith(ctx, &Discovery{Env: env, Dir: p.opts.Dir}, client, t)
		}()
	}
	wg.Wait()
	return results
}

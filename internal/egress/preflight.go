package egress

import (
	"context"
	"sync"
)

// maxParallelProbes bounds the targets ProbeAll asks about at once.
const maxParallelProbes = 8

// ProbeAll asks about every target as ProbeAs does, at most eight at once, and returns the results in the targets' order.
func (p *Prober) ProbeAll(ctx context.Context, client Client, targets []Target) []*Result {
	results := make([]*Result, len(targets))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxParallelProbes)
	for i, t := range targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = p.ProbeAs(ctx, client, t)
		}()
	}
	wg.Wait()
	return results
}

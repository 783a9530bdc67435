// Package jobs is the job file: its model, its loading with positions, its
// validation, its if: expressions and ${...} expansion, and the runner that
// runs a job's steps in order with one breaker registry and one egress
// prober for the whole run, into one report.
package jobs

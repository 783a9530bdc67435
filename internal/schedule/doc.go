// Package schedule runs a job file's jobs on their cron: triggers with
// gocron on the injected clock.Clock (Serve; clock.go adapts it to gocron), or once when due (Once,
// for a system cron), keeping each run's report in a History folder that
// one process at a time holds the lock of.
package schedule

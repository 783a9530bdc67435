package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestStartHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tests := []struct {
		name    string
		env     map[string]string
		start   int  // GOGC right after startHeap
		restore bool // GOGC goes back to 100 after the first cycle
	}{
		{name: "no GOGC: 400 until the first cycle, then 100", env: map[string]string{}, start: startGOGC, restore: true},
		{name: "GOGC set: left alone", env: map[string]string{"GOGC": "50"}, start: 100},
		{name: "GOGC set empty: left alone", env: map[string]string{"GOGC": ""}, start: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			restored := startHeap(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if got := debug.SetGCPercent(-1); got != tt.start {
				t.Fatalf("GOGC after startHeap = %d, want %d", got, tt.start)
			}
			debug.SetGCPercent(tt.start)
			if !tt.restore {
				select {
				case <-restored:
					t.Fatal("restored closed, but GOGC was left alone")
				default:
				}
				return
			}
			// A cycle finds the sentinel unreachable; its cleanup runs on the
			// runtime's cleanup goroutine, which a few more cycles let run.
			for i := 0; ; i++ {
				runtime.GC()
				select {
				case <-restored:
					if got := debug.SetGCPercent(100); got != 100 {
						t.Fatalf("GOGC after the first cycle = %d, want 100", got)
					}
					return
				default:
				}
				if i == 100 {
					t.Fatal("GOGC was not restored after 100 GC cycles")
				}
				runtime.Gosched()
			}
		})
	}
}

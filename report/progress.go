package report

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// ProgressBar shows a run's progress on a terminal: the case, samples
// taken of all, elapsed time and an estimate of the time left. Updates only
// store the latest state; a goroutine of its own draws it, so that the
// measuring thread never waits on the terminal.
type ProgressBar struct {
	latest atomic.Pointer[testrun.Progress]
	stop   chan struct{}
	done   sync.WaitGroup
}

// NewProgressBar starts drawing on w.
func NewProgressBar(w io.Writer) *ProgressBar {
	p := &ProgressBar{stop: make(chan struct{})}
	bar := progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("loading"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		measuring := false
		for {
			select {
			case <-p.stop:
				_ = bar.Clear()
				return
			case <-tick.C:
			}
			state := p.latest.Load()
			switch {
			case state == nil:
				continue
			case state.Warmup:
				bar.Describe("warming up " + state.Case)
				_ = bar.Add(1)
			default:
				if !measuring {
					// The bar's rate and ETA must not count the warm-up.
					bar.Reset()
					bar.ChangeMax(state.Total)
					measuring = true
				}
				bar.Describe(fmt.Sprintf("sampling %-10s", state.Case))
				_ = bar.Set(state.Done)
			}
		}
	}()
	return p
}

// Update records the latest progress; it returns at once.
func (p *ProgressBar) Update(state testrun.Progress) { p.latest.Store(&state) }

// Stop clears the bar.
func (p *ProgressBar) Stop() {
	close(p.stop)
	p.done.Wait()
}

package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/report"
	"github.com/xdpmicro/xdpmicro/testrun"
	"golang.org/x/term"
)

// progressBar shows a run's progress on a terminal. Updates only store the
// latest state; a goroutine of its own draws it, so that the measuring
// thread never waits on the terminal.
//
// Adaptive sampling ends when every case is precise enough or the time
// budget is spent, whichever comes first; the bar counts the budget, the
// one end known in advance, and says so. Fixed sampling counts samples.
type progressBar struct {
	w      io.Writer
	latest atomic.Pointer[testrun.Progress]
	stop   chan struct{}
	done   sync.WaitGroup
}

// newProgressBar starts drawing on w, a terminal.
func newProgressBar(w io.Writer) *progressBar {
	p := &progressBar{w: w, stop: make(chan struct{})}
	// A known length from the start: with -1, the library draws from a
	// goroutine of its own that nothing stops.
	bar := progressbar.NewOptions(100,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("loading"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
	p.done.Add(1)
	go p.draw(bar)
	return p
}

// draw shows the latest state every 100 ms until the bar is stopped.
func (p *progressBar) draw(bar *progressbar.ProgressBar) {
	defer crash.Guard()
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
		if state := p.latest.Load(); state != nil {
			measuring = showProgress(bar, state, measuring)
		}
	}
}

// showProgress draws state on bar. measuring says whether the bar counts the
// sampling yet, rather than the warm-up; it is returned for the next.
func showProgress(bar *progressbar.ProgressBar, state *testrun.Progress, measuring bool) bool {
	name := report.PrintableLine(state.Case) // a name from a file, on the terminal, on the bar's line
	switch {
	case state.Warmup:
		bar.Describe("warming up " + name)
		_ = bar.Set(0)
	case state.Budget > 0:
		if !measuring {
			bar.Reset()
			bar.ChangeMax(int(state.Budget.Milliseconds()))
			measuring = true
		}
		bar.Describe(fmt.Sprintf("sampling %-10s %d samples, %.1f of at most %.0f s", name, state.Done,
			state.Elapsed.Seconds(), state.Budget.Seconds()))
		_ = bar.Set(int(min(state.Elapsed, state.Budget).Milliseconds()))
	default:
		if !measuring {
			// The bar's rate must not count the warm-up.
			bar.Reset()
			bar.ChangeMax(state.Total)
			measuring = true
		}
		bar.Describe(fmt.Sprintf("sampling %-10s %d of %d samples", name, state.Done, state.Total))
		_ = bar.Set(state.Done)
	}
	return measuring
}

// update records the latest progress; it returns at once.
func (p *progressBar) update(state testrun.Progress) { p.latest.Store(&state) }

// finish clears the bar and its line, so that what follows, a table or
// the note of an interrupted run, starts on a clean line.
func (p *progressBar) finish() {
	close(p.stop)
	p.done.Wait()
	fmt.Fprint(p.w, "\r\x1b[2K")
}

// observer is what a person sees of a run on stderr: the progress bar,
// where stderr is a terminal and not --quiet, and every notice.
type observer struct {
	bar    *progressBar
	notice func(string)
}

func (o observer) Progress(p testrun.Progress) {
	if o.bar != nil {
		o.bar.update(p)
	}
}

func (o observer) Notice(line string) { o.notice(line) }

// observe returns the observer of a run, and what stops its drawing
// before anything else is written.
func observe(cmd *cobra.Command, quiet bool) (observer, func()) {
	o := observer{notice: noticeTo(cmd.ErrOrStderr())}
	if stderr, ok := cmd.ErrOrStderr().(*os.File); ok && !quiet && term.IsTerminal(int(stderr.Fd())) {
		o.bar = newProgressBar(stderr)
		return o, o.bar.finish
	}
	return o, func() {}
}

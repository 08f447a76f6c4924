package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/xdpmicro/xdpmicro"
	"github.com/xdpmicro/xdpmicro/internal/crash"
	"github.com/xdpmicro/xdpmicro/testrun"
)

// worstObserver shows a search's progress in a line on stderr, redrawn
// five times a second when stderr is a terminal, then hands over to the
// timing's progress bar.
type worstObserver struct {
	cmd     *cobra.Command
	quiet   bool
	w       io.Writer // the terminal; nil: draw nothing
	width   int       // the terminal's: a longer line would wrap, and not be redrawn
	latest  atomic.Pointer[xdpmicro.WorstProgress]
	stop    chan struct{}
	done    sync.WaitGroup
	timing  observer
	endBar  func()
	stopped bool
}

func newWorstObserver(cmd *cobra.Command, quiet bool) *worstObserver {
	o := &worstObserver{cmd: cmd, quiet: quiet, stop: make(chan struct{}), timing: observer{notice: noticeTo(cmd.ErrOrStderr())}, endBar: func() {}}
	if stderr, ok := cmd.ErrOrStderr().(*os.File); ok && !quiet && term.IsTerminal(int(stderr.Fd())) {
		o.w, o.width = stderr, 100
		if w, _, err := term.GetSize(int(stderr.Fd())); err == nil && w > 1 {
			o.width = w - 1
		}
		o.done.Add(1)
		go o.draw()
	}
	return o
}

func (o *worstObserver) draw() {
	defer crash.Guard()
	defer o.done.Done()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-o.stop:
			fmt.Fprint(o.w, "\r\x1b[2K")
			return
		case <-tick.C:
		}
		if p := o.latest.Load(); p != nil {
			line := []rune(progressLine(*p))
			fmt.Fprintf(o.w, "\r\x1b[2K%s", string(line[:min(len(line), o.width)]))
		}
	}
}

// progressLine is a search's progress in a line.
func progressLine(p xdpmicro.WorstProgress) string {
	rate := 0.0
	if p.Elapsed > 0 {
		rate = float64(p.Tried) / p.Elapsed.Seconds()
	}
	return fmt.Sprintf("searching: best so far %d instructions; %d packets tried (%.0f/s), %d distinct paths; %.1f of %.0f s",
		p.Best, p.Tried, rate, p.Paths, p.Elapsed.Seconds(), p.Budget.Seconds())
}

// Searching records the search's progress; it returns at once.
func (o *worstObserver) Searching(p xdpmicro.WorstProgress) { o.latest.Store(&p) }

// endSearch stops the line, once, and says in one what the search did.
func (o *worstObserver) endSearch() {
	if o.stopped {
		return
	}
	o.stopped = true
	close(o.stop)
	o.done.Wait()
	if p := o.latest.Load(); p != nil {
		fmt.Fprintln(o.cmd.ErrOrStderr(), "xdpmicro: "+progressLine(*p))
	}
}

// Progress is the timing's: the search is over, the bar takes the line.
func (o *worstObserver) Progress(p testrun.Progress) {
	if !o.stopped {
		o.endSearch()
		o.timing, o.endBar = observe(o.cmd, o.quiet)
	}
	o.timing.Progress(p)
}

func (o *worstObserver) Notice(line string) {
	o.endSearch()
	o.timing.Notice(line)
}

// finish clears what is drawn, before the report is written.
func (o *worstObserver) finish() {
	o.endSearch()
	o.endBar()
}

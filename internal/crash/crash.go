package crash

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// ExitCode is the exit code of a panic (BSD's EX_SOFTWARE, an internal
// software error): neither 1, a failed run, nor 2, bad input.
const ExitCode = 70

// ReportTo is where a panic's message asks the user to report it.
const ReportTo = "https://github.com/xdpmicro/xdpmicro/issues"

// Report writes a panic's message: one line that says it is a bug and
// where to report it, then the stack of the goroutine that panicked,
// for the report.
func Report(w io.Writer, recovered any, stack []byte) {
	fmt.Fprintf(w, "xdpmicro: internal error (a bug, exit %d): %v; please report it at %s with the command line and the stack below\n", ExitCode, recovered, ReportTo)
	w.Write(stack)
}

// Catch, deferred by the function that runs the command, turns a panic
// in that goroutine into ExitCode in *code, after Report on w.
func Catch(w io.Writer, code *int) {
	if r := recover(); r != nil {
		Report(w, r, debug.Stack())
		*code = ExitCode
	}
}

// Guard, deferred first in every goroutine xdpmicro starts, ends the
// process with ExitCode after Report on stderr: a panic there cannot
// reach Catch. What the process loaded goes with it, as on any exit.
func Guard() {
	if r := recover(); r != nil {
		Report(os.Stderr, r, debug.Stack())
		os.Exit(ExitCode)
	}
}

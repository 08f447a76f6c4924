package crash

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
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
// reach Catch. What the process loaded goes with it, as on any exit;
// what the kernel keeps, Exit's cleanups undo.
func Guard() {
	if r := recover(); r != nil {
		Report(os.Stderr, r, debug.Stack())
		Exit(ExitCode)
	}
}

// Cleanups: what the kernel does not take back from a process that
// exits (a sysctl it set: internal/host's RCU knob). A process that ends
// abruptly, a panic in a goroutine or a second Ctrl-C, runs no deferred
// function of the others, so these run before it exits.
var (
	cleanupsMu sync.Mutex
	cleanups   = map[int]func(){}
	nextID     int
)

// AtExit registers f to run when Exit ends the process; remove, which a
// normal return calls before it undoes the same itself, unregisters it.
// f must not call AtExit, remove or Exit; remove blocks while Exit runs,
// so its caller must hold nothing that f needs.
func AtExit(f func()) (remove func()) {
	cleanupsMu.Lock()
	defer cleanupsMu.Unlock()
	id := nextID
	nextID++
	cleanups[id] = f
	return func() {
		cleanupsMu.Lock()
		defer cleanupsMu.Unlock()
		delete(cleanups, id)
	}
}

// Exit runs the registered cleanups, then ends the process with code at
// once. The lock stays held: nothing registers or removes a cleanup
// after it, and a second Exit waits for the first's.
func Exit(code int) {
	cleanupsMu.Lock()
	for _, f := range cleanups {
		f()
	}
	os.Exit(code)
}

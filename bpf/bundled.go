package bpf

import (
	"errors"
	"fmt"
	"strings"
)

// Build is one bundled build of FizzBuzzFibonacci, or a rung of the fine
// ladder.
type Build struct {
	Name        string // as given on the command line: v1..v4, rung0..rung16
	Description string
	Program     string // the XDP function in the object
	Object      []byte // the ELF object, embedded at compile time
	// Rung marks a fine-ladder program: it passes every frame, so the
	// FizzBuzzFibonacci cases' expected actions do not apply to it.
	Rung bool
}

// Default is the build measured when no object is named.
const Default = "v4"

// ErrUnknownBuild is returned by Lookup for a name that is not bundled.
var ErrUnknownBuild = errors.New("unknown bundled build")

// The program's function name, the same in every build.
const program = "fizzbuzz"

// Builds returns the bundled builds, oldest first.
func Builds() []Build {
	return []Build{
		{"v1", "push the IPv4 source address into a queue", program, _FizzbuzzV1Bytes, false},
		{"v2", "FizzBuzz: push Fizz (%3), Buzz (%5), FizzBuzz (%15), else nothing", program, _FizzbuzzV2Bytes, false},
		{"v3", "FizzBuzzFibonacci, Fibonacci first for every packet, by a loop (the regression)", program, _FizzbuzzV3Bytes, false},
		{"v4", "FizzBuzzFibonacci, Fibonacci first, a constant-time test (the fix)", program, _FizzbuzzV4Bytes, false},
	}
}

// Floor returns the object of empty programs, one per measurable type
// (empty_xdp, empty_tc, empty_socket), whose time is the harness floor.
func Floor() []byte { return _EmptyBytes }

// Restorer returns the object of the restorer (restore.c): an XDP program
// that puts a test run's buffer back to the case's frame before each run
// and tail-calls the program under test, so that every run of a call sees
// a fresh frame.
func Restorer() []byte { return _RestoreBytes }

// Rungs returns the fine ladder's rungs as builds, rungN being
// FineProgram(N): programs a few one-cycle instructions apart, to check
// that a comparison tells them apart (bench --before rung0 --after rung2).
func Rungs() []Build {
	var rungs []Build
	for _, n := range FineSteps {
		rungs = append(rungs, Build{
			Name:        fmt.Sprintf("rung%d", n),
			Description: fmt.Sprintf("%s and %d one-cycle shifts on its dependency chain", LadderProgram(FineBase), n),
			Program:     FineProgram(n), Object: _LadderBytes, Rung: true,
		})
	}
	return rungs
}

// Lookup returns the bundled build or rung of that name.
func Lookup(name string) (Build, error) {
	var names []string
	for _, b := range append(Builds(), Rungs()...) {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return Build{}, fmt.Errorf("%w %q (bundled: %s)", ErrUnknownBuild, name, strings.Join(names, ", "))
}

// LadderBase is the steps every ladder program does before its own
// (ladder.c's BASE_STEPS, which a test holds it to): enough that the chain
// stands above the test-run loop's own time per run.
const LadderBase = 64

// LadderSteps are the step counts of the ladder programs, ascending.
var LadderSteps = []int{0, 1, 2, 4, 8, 16, 32, 64}

// Ladder returns the object of ladder programs: ladder_N does N identical
// dependent multiply-adds on top of a base chain long enough to stand
// above the test-run loop's own time per run, so their costs are known
// relative to each other. They validate what xdpmicro measures (order, linearity,
// resolution, spread), as `xdpmicro validate` does.
func Ladder() []byte { return _LadderBytes }

// LadderProgram returns the function name, in Ladder's object, of the
// program that does steps steps beyond the base chain: ladder_<steps>.
func LadderProgram(steps int) string { return fmt.Sprintf("ladder_%d", steps) }

// FineBase is the ladder program the fine rungs build on.
const FineBase = 0

// FineSteps are the fine step counts of the fine rungs, ascending: fine_N
// is ladder_0 and N one-instruction fine steps (an add of x to itself), so that
// neighbours differ by a fraction of a nanosecond.
var FineSteps = []int{0, 1, 2, 4, 8, 16}

// FineProgram returns the function name, in Ladder's object, of the fine
// rung with that many fine steps: fine_<steps>.
func FineProgram(steps int) string { return fmt.Sprintf("fine_%d", steps) }

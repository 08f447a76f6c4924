// Package testrun drives BPF programs through the kernel's
// BPF_PROG_TEST_RUN command, without attaching them anywhere.
//
// It loads an object, picks the program, runs every packet case once and
// checks its return code, pins the measuring OS thread to one CPU, warms up,
// and takes samples: each sample is one test run, timed by the wall clock
// around the call, for which the kernel also reports the mean time per run
// in whole nanoseconds. Samples of all cases, programs and placements are
// taken in rounds, in an order shuffled every round, so that drift on the
// machine and what ran just before hit every unit alike. With linear
// sampling (linear.go) each round runs one of several repeats, so that the
// time per run is the slope of the wall time over the repeat. A program can
// be loaded several times (placements): each load is compiled to its own
// address, which alone changes its speed.
//
// XDP test runs with a repeat count above one put the program into the XDP
// dispatcher and take it out around the timed loop, which costs tens of
// milliseconds a call since Linux 6.2. While XDP programs are sampled,
// anchors (anchor.go) hold each of them in the dispatcher, so a call costs
// about a microsecond; calibration measures both costs and anchors only
// where it pays.
//
// Where to measure is internal/host's: a run holds a machine-wide lock on
// its measuring CPU (host.ChooseCPU) from choosing it until it returns, so
// that two xdpmicro runs never measure on one CPU at once, and host watches
// what else the machine did meanwhile.
//
// What it measures, internal/object loads: as its own loader would set it
// up, with its maps filled, never pinned or attached. The checking run
// runs every case once through each program and records its action, its
// frame and what it changed in the maps.
//
// The system call is its own (progtestrun.go): one BPF_PROG_TEST_RUN, no
// retries, the kernel's figures as they come, so that an anchor ends on
// the first signal and a sample counts its restarts.
//
// Its API names no internal package's type (public.go): Object,
// ProgramInfo, Effect, ContextChange, Block and LoadOptions are plain data,
// MapInit and LiveNet handles made by ReadMapInit or ParseMapInit and by
// OpenLiveNet; each is converted at the boundary to the internal package
// that does the work (TestAPINamesNoInternalType holds it).
//
// The package returns raw samples and the environment they were taken in;
// it knows nothing of statistics or output formats.
package testrun

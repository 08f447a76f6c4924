package results

import "time"

// Environment is where and how the samples were taken.
type Environment struct {
	Kernel     string `json:"kernel"`
	KernelInfo string `json:"kernel_version"`
	Arch       string `json:"arch"`
	CPUModel   string `json:"cpu_model"`
	CPU        int    `json:"cpu"`
	CPUChoice  string `json:"cpu_choice"` // why CPU, e.g. "isolated", and a move or a wait
	// CPULock says how other xdpmicro runs were kept off the CPU; nil in
	// results saved before runs took CPU locks.
	CPULock *CPULock `json:"cpu_lock,omitempty"`
	CPUs    int      `json:"cpus"`
	// Groups is how many groups the loads were measured in, each loaded,
	// anchored and sampled on its own, LoadsPerGroup loads of each program
	// a group; zero in results saved before loads were grouped.
	Groups        int `json:"groups,omitempty"`
	LoadsPerGroup int `json:"loads_per_group,omitempty"`
	// GroupCPUs is the CPU each group measured on, where groups moved off
	// a CPU that met a slow phase of its own (CPU is the first group's);
	// nil where every group measured on CPU.
	GroupCPUs []int  `json:"group_cpus,omitempty"`
	Hostname  string `json:"hostname"`
	Repeat    uint32 `json:"repeat"`
	// RepeatChosen says Repeat was chosen by calibration, not given.
	RepeatChosen bool `json:"repeat_chosen,omitempty"`
	// TargetSample is the kernel-timed length of a sample a chosen Repeat
	// aims at.
	TargetSample time.Duration `json:"target_sample_ns,omitempty"`
	Samples      int           `json:"samples"`
	Warmup       string        `json:"warmup"`
	Resolution   float64       `json:"resolution_ns"` // the quantum of one sample's time per run
	Timer        string        `json:"timer"`
	Start        time.Time     `json:"start"`
	// Wall is the whole run's duration as its caller waited for it, from
	// the command line (or the call) to the report, loading, sampling and
	// analysis included; KernelTime is what the kernel timed of the kept
	// samples inside it.
	Wall       time.Duration `json:"wall_ns"`
	KernelTime time.Duration `json:"kernel_time_ns"`
	// Sampling says how the samples were taken.
	Sampling Sampling `json:"sampling"`
	// Dispatcher says how the calls met the XDP dispatcher's changes.
	Dispatcher Dispatcher `json:"dispatcher"`
	// MachineLoad is how busy the machine was while it measured.
	MachineLoad MachineLoad `json:"load"`
	// TLBFlushedOnEntry says every entry into the kernel flushes the TLB
	// (PTI without PCID): one run a call then starts with no page
	// translated (host's tlb.go).
	TLBFlushedOnEntry bool `json:"tlb_flushed_on_entry,omitempty"`
	// RunTimeStats says the kernel's run-time statistics were on while it
	// measured, though not as its timer: every run paid their clock reads
	// (a warning says so), and the run is no phase of this machine.
	RunTimeStats bool `json:"run_time_stats_on,omitempty"`
	// Notes say what xdpmicro changed of the objects of its own accord to
	// load them, and what it could not watch.
	Notes []string `json:"notes,omitempty"`
}

// CPULock is the machine-wide lock a run held on its measuring CPU, from
// choosing it until the run ended, and what it found of other runs.
type CPULock struct {
	// Path is the lock's address: the abstract unix socket the run bound,
	// @xdpmicro-cpuN, which is no file (results saved before issue 37
	// name a lock file in /run/lock); empty when none could be taken (a
	// note says why).
	Path string `json:"path,omitempty"`
	// Preferred is the CPU asked for, or the choice's first: the run
	// moved when CPU differs from it, because other runs held it.
	Preferred int `json:"preferred"`
	// HeldByOthers are the CPUs other xdpmicro runs held when this run
	// tried them, in the order tried.
	HeldByOthers []int `json:"held_by_others,omitempty"`
	// Waited is how long the run waited for one of them to come free.
	Waited time.Duration `json:"waited_ns,omitempty"`
}

// Sampling is how the samples were taken.
type Sampling struct {
	Mode string `json:"mode"` // "flat" or "linear"
	// Why says why sampling is flat when linear was asked.
	Why string `json:"why,omitempty"`
	// First, Step and Levels are linear sampling's repeats: first,
	// first+step, … first+(levels-1)·step. Files of before first was
	// saved start at step.
	First  uint32 `json:"first,omitempty"`
	Step   uint32 `json:"step,omitempty"`
	Levels int    `json:"levels,omitempty"`
	Clock  string `json:"clock,omitempty"`
	// SingleCalls is how many calls of one run each make a sample of a
	// case sampled one run a call (CaseResult.Single).
	SingleCalls int `json:"single_calls,omitempty"`
	// PastBudget says why sampling ran past the time budget: the fewest
	// rounds every result needs took longer at the given repeat.
	PastBudget string `json:"past_budget,omitempty"`
}

// Range returns the first and the last level's repeat.
func (s Sampling) Range() (first, last uint32) {
	first = s.First
	if first == 0 {
		first = s.Step
	}
	return first, first + uint32(max(s.Levels-1, 0))*s.Step
}

// Dispatcher is what calibration measured of the cost of a call beyond its
// timed loop, and whether anchors held the programs in the XDP dispatcher.
type Dispatcher struct {
	Anchored bool   `json:"anchored"`
	Why      string `json:"why"` // why anchored, or why not
	// Overhead is the wall time of a call of repeat 2 beyond its two runs
	// as the samples were taken (the median of several); Unanchored that
	// of one call without anchors.
	Overhead   time.Duration `json:"call_overhead_ns"`
	Unanchored time.Duration `json:"call_overhead_unanchored_ns"`
	// Programs is how many programs anchors held at once.
	Programs int `json:"programs_held,omitempty"`
	// Restarts counts anchor calls re-entered after the first, each of
	// which changed the dispatcher again.
	Restarts int `json:"anchor_restarts,omitempty"`
	// Expedited says the kernel's RCU grace periods were expedited while
	// anchors entered and left the dispatcher, never while sampling.
	Expedited bool `json:"rcu_expedited,omitempty"`
}

// MachineLoad is how busy the machine was during a run. Shares are
// fractions of the time, from 0 to 1.
type MachineLoad struct {
	// IRQShare and StealShare are the measuring CPU's time spent over the
	// run in interrupts (irq and softirq), and stolen by a hypervisor.
	IRQShare   float64 `json:"irq_share"`
	StealShare float64 `json:"steal_share"`
	// OtherCPUs is how many other CPUs were online; their mean busy share
	// follows, in the run's first and last second, and the least and most
	// over the run in windows of about a second.
	OtherCPUs        int     `json:"other_cpus"`
	OthersBusyStart  float64 `json:"others_busy_start"`
	OthersBusyEnd    float64 `json:"others_busy_end"`
	OthersBusyMin    float64 `json:"others_busy_min"`
	OthersBusyMax    float64 `json:"others_busy_max"`
	RunnableStart    int     `json:"runnable_start"` // other processes' tasks running or waiting for a CPU
	RunnableEnd      int     `json:"runnable_end"`
	LoadAverageStart float64 `json:"loadavg1_start"` // the one-minute load average
	LoadAverageEnd   float64 `json:"loadavg1_end"`
	// CPU pressure (PSI "some avg10"): the share of the last 10 s in
	// which some task waited for a CPU; absent without PSI.
	PressureStart *float64 `json:"cpu_pressure_start,omitempty"`
	PressureEnd   *float64 `json:"cpu_pressure_end,omitempty"`
	// Preemptions counts the times the measuring thread was made to give
	// way to another task (involuntary context switches): tasks come and
	// go on other CPUs without it.
	Preemptions int `json:"preemptions"`
	// Watched is how long the load was watched.
	Watched time.Duration `json:"watched_ns"`
	// Warnings say, one line each, what in the load may have moved the
	// samples.
	Warnings []string `json:"warnings,omitempty"`
}

// MainCPU is the CPU most groups measured on, the first of a tie: the
// CPU whose phases the run's fast floor tells of.
func (e Environment) MainCPU() int {
	if len(e.GroupCPUs) == 0 {
		return e.CPU
	}
	groups := map[int]int{}
	best := e.GroupCPUs[0]
	for _, c := range e.GroupCPUs {
		if groups[c]++; groups[c] > groups[best] {
			best = c
		}
	}
	return best
}

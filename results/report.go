package results

import "github.com/xdpmicro/xdpmicro/stats"

// Schema identifies the JSON document's layout; bump it when a field's
// meaning changes, so that a reader of saved results can refuse old ones.
const Schema = "xdpmicro.bench/v2"

// Settings are the choices the run was made with, echoed into reports.
type Settings struct {
	Object     string   `json:"object"`
	Before     string   `json:"before,omitempty"` // the old build of a before/after run
	Program    string   `json:"program,omitempty"`
	Cases      []string `json:"cases"`
	Sizes      []int    `json:"sizes,omitempty"` // frame sizes every case was padded to
	CPU        int      `json:"cpu"`             // as asked; -1 for the tool's choice
	Samples    int      `json:"samples"`
	Repeat     uint32   `json:"repeat"`
	Warmup     string   `json:"warmup"`
	Confidence float64  `json:"confidence"`
	Resamples  int      `json:"resamples"`
	// Estimator is the statistic that stands for each case.
	Estimator stats.Estimator `json:"estimator"`
	// Precision and Budget are adaptive sampling's target (relative
	// half-width of the estimator's interval) and time limit; zero when
	// the number of samples was fixed.
	Precision float64 `json:"precision,omitempty"`
	Budget    string  `json:"time_budget,omitempty"`
}

// UnrecordedEstimator is what a saved report that names no estimator was
// made with: the low estimator, the tool's only choice when schema v2 was
// young. A run's own default is the root package's.
const UnrecordedEstimator = stats.Low

// ChosenEstimator is the report's estimator: UnrecordedEstimator where
// none was recorded.
func (s Settings) ChosenEstimator() stats.Estimator {
	if s.Estimator == "" {
		return UnrecordedEstimator
	}
	return s.Estimator
}

// Run is everything one bench run found.
type Run struct {
	Schema      string      `json:"schema"`
	Settings    Settings    `json:"config"`
	Environment Environment `json:"environment"`
	Partial     bool        `json:"partial,omitempty"`
	Programs    []Program   `json:"programs"`
	// Floor is the empty program measured with every case, if it was.
	Floor      *Program    `json:"floor,omitempty"`
	Comparison *Comparison `json:"comparison,omitempty"`

	// PooledFrom, where the estimator is a slope whose every repeat level
	// was pooled (stats.PooledRuns: a call's own cost under 0.05 % of its
	// runs), is the repeat it pools from; 0 otherwise. Package analysis
	// works it out for the renderers, for a report it reads back too; it
	// is not saved, as the saved settings give it.
	PooledFrom int `json:"-"`
}

// Program is one measured program.
type Program struct {
	Label   string      `json:"label,omitempty"`
	Object  string      `json:"object"`
	Info    ProgramInfo `json:"program"`
	Results []Case      `json:"cases"`
	// Placements are the program's other loads, measured in the same
	// rounds: comparisons of builds use them all.
	Placements []Program `json:"placements,omitempty"`
	// Series holds each case's mean by frame size, when --size was given.
	Series []Series `json:"series,omitempty"`
	// Verifier is what the kernel told of this load of the program.
	Verifier *Verifier `json:"verifier,omitempty"`
	// CodeOffset is where this load's JIT image began in its cache line,
	// in bytes, where the kernel told it.
	CodeOffset *int `json:"code_offset,omitempty"`
}

// The verifier's verdicts.
const (
	VerdictSuccess = "success"
	VerdictFailure = "failure"
)

// VerificationTimes are the verification times of the program's loads,
// in microseconds, lowest first: they vary from load to load, as run
// time does.
func (p Program) VerificationTimes() []uint64 {
	var loads []Verifier
	for _, q := range append([]Program{p}, p.Placements...) {
		if q.Verifier != nil {
			loads = append(loads, *q.Verifier)
		}
	}
	return Times(loads)
}

// Verifier is what the kernel told of one load of a program. From the
// verifier's log at BPF_LOG_STATS, on the load that is measured: its
// time, the instructions it processed (the figure the 1,000,000 limit
// holds), its states and the stack depth of each function. From
// bpf_prog_info: the program's size as the kernel rewrote it, and its
// native code's. All but the time are the same for every load of a build.
type Verifier struct {
	// Verdict is success, or failure (xdpmicro verifier only: bench
	// measures no refused program) with Reason.
	Verdict          string `json:"verdict,omitempty"`
	Reason           string `json:"reason,omitempty"`
	TimeMicros       uint64 `json:"time_us"`
	Processed        uint64 `json:"processed_insns"`
	TotalStates      uint64 `json:"total_states"`
	PeakStates       uint64 `json:"peak_states"`
	MaxStatesPerInsn uint64 `json:"max_states_per_insn"`
	// MarkRead is nil where the kernel does not give it (6.x).
	MarkRead    *uint64 `json:"mark_read,omitempty"`
	StackDepths []int   `json:"stack_depths,omitempty"`
	XlatedInsns int     `json:"xlated_insns,omitempty"`
	JITBytes    int     `json:"jit_bytes,omitempty"`
}

// Series is the cost of one case at each frame size.
type Series struct {
	Case   string        `json:"case"`
	Points []SeriesPoint `json:"points"`
}

// SeriesPoint is the estimated time per run at one frame size.
type SeriesPoint struct {
	Size     int      `json:"size"`
	Estimate Estimate `json:"estimate"`
}

// Case is one packet case's measurement and its statistics.
type Case struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Source  string `json:"source,omitempty"`
	Length  int    `json:"frame_length"`
	Frame   string `json:"frame_hex"`
	Return  uint32 `json:"return"`
	Action  string `json:"action"`
	Retries int    `json:"retries"`
	// Effects are the changes the checking run made to maps.
	Effects []Effect `json:"effects,omitempty"`
	// Single says the case was sampled one run a call, on a fresh frame
	// each, as its program changes the frame: its estimate is the low one
	// of the kernel's figures, whatever the estimator.
	Single bool `json:"single_run,omitempty"`
	// Restored says the case was sampled as repeats through xdpmicro's
	// restorer, every run on a fresh copy of the frame: its samples, and
	// the floor's, hold the restoring, which the net leaves out.
	Restored bool `json:"restored,omitempty"`
	// OutputFrame is the frame as the checking run left it, in hex, when
	// the program changed it: every later run of a call saw that instead.
	OutputFrame string `json:"output_frame_hex,omitempty"`
	// OutputSummary describes that frame in a line, OutputChanges how it
	// differs from the input.
	OutputSummary string `json:"output_frame_summary,omitempty"`
	OutputChanges string `json:"output_changes,omitempty"`
	// OtherReturns counts the samples whose call ended with another action
	// than the checking run's, OtherAction the first of them.
	OtherReturns int    `json:"other_returns,omitempty"`
	OtherAction  string `json:"other_action,omitempty"`
	// Instructions is the number of BPF instructions the checking run
	// executed; zero when not counted, and NoCount says why.
	Instructions uint64 `json:"instructions,omitempty"`
	NoCount      string `json:"instructions_unknown,omitempty"`
	// State is the map state the runs were timed in: steady (a run after
	// the case's own earlier ones), first (every run from the maps as
	// loaded); empty in reports saved before it was kept.
	State string `json:"state,omitempty"`
	// FirstInstructions and LaterInstructions are the instructions of
	// the first run from the maps as loaded and of a run after a warm-up,
	// LaterAction the latter's action where it differs: they differ when
	// a program takes another path once its maps hold what its first run
	// changed (a miss and an insert, then hits). Instructions is the
	// timed one's.
	FirstInstructions uint64 `json:"first_instructions,omitempty"`
	LaterInstructions uint64 `json:"later_instructions,omitempty"`
	LaterAction       string `json:"later_action,omitempty"`
	// Unrestored names the maps whose changes were not put back between
	// a first-state case's runs.
	Unrestored string `json:"unrestored,omitempty"`
	// Undone says a first-state case was sampled as repeats, the maps put
	// back inside the kernel before each run by a generated program, whose
	// cost the floor's runs, undoing alike on maps of their own, take out;
	// else it was sampled one run a call, the maps put back between calls.
	Undone bool `json:"undone,omitempty"`
	// PutBack is, for an undone case, what the put-back took a run inside
	// BPF, in ns: a program's delete that frees what the run before
	// inserted may cost more than the floor's, which finds nothing.
	PutBack float64 `json:"put_back_ns,omitempty"`
	// PutBackOver is how much more than the floor's the put-back took; it
	// may be negative. The net keeps it (analysis says why).
	PutBackOver float64 `json:"put_back_over_floor_ns,omitempty"`
	// LRUMap and LRUEntries name an LRU map whose new entry an undone
	// case's put-back deletes, and its size: each run's insert takes back
	// the node the delete freed, the cheapest miss such a map has.
	LRUMap     string `json:"lru_map,omitempty"`
	LRUEntries uint32 `json:"lru_entries,omitempty"`
	// Flows is N of a flows=N state, MissRate the share of its runs that
	// took a new flow's path, as the instrumented copy replayed its flows
	// (nil when not counted); its Instructions are their mean.
	Flows    int       `json:"flows,omitempty"`
	MissRate *float64  `json:"miss_rate,omitempty"`
	Samples  []float64 `json:"samples_ns"`
	// Runs and Wall are linear sampling's repeat and wall time (ns) of
	// each sample's call.
	Runs []uint32  `json:"runs,omitempty"`
	Wall []float64 `json:"wall_ns,omitempty"`
	// Net is the estimated time per run less the floor's, sampled in the
	// same rounds, with its paired bootstrap interval; nil without a floor.
	Net *Estimate `json:"net,omitempty"`
	// Enough says adaptive sampling reached the asked precision.
	Enough bool `json:"enough,omitempty"`
	// Stats is nil when a cancelled run left too few samples.
	Stats *Summary `json:"stats"`

	// Context is the context the case's runs were given, "mark=0x2a,...";
	// ContextChanges what the checking run's program changed of it.
	Context        string          `json:"context,omitempty"`
	ContextChanges []ContextChange `json:"context_changes,omitempty"`
}

// PathChanges says whether the case's later runs took another path than
// its first: other instructions, or another action.
func (c Case) PathChanges() bool {
	return c.FirstInstructions != c.LaterInstructions || c.LaterAction != ""
}

// Measured is the program a report is about: the only one, or the after
// build of a comparison, which is always the last. Nil when the report
// holds none.
func (r *Run) Measured() *Program {
	if len(r.Programs) == 0 {
		return nil
	}
	return &r.Programs[len(r.Programs)-1]
}

// Phase is how the run was scaled to the machine's fast phase, as the
// first case measured over loads records it: the floor's, or where the
// floor was loaded once, a program's; nil where it was not.
func (r *Run) Phase() *Phase {
	progs := r.Programs
	if r.Floor != nil {
		progs = append([]Program{*r.Floor}, progs...)
	}
	for _, p := range progs {
		for _, c := range p.Results {
			if c.Stats != nil && c.Stats.Loads != nil && c.Stats.Loads.Phase != nil {
				return c.Stats.Loads.Phase
			}
		}
	}
	return nil
}

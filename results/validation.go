package results

// Validation is what a ladder of programs of known relative cost says
// about the measurements: the ladder_N programs (N steps each), measured
// together with the floor in each of several separate runs.
type Validation struct {
	Steps []int `json:"steps"`
	// Names are the ladder programs' names, in the order of Steps.
	Names []string `json:"programs"`
	// BaseSteps is the chain every ladder program does before its own
	// steps, so that each step shows. MaxSpread is the least limit of
	// the spread, MinR2 the fit's (package ladder sets them).
	BaseSteps int     `json:"base_steps"`
	MaxSpread float64 `json:"max_spread"`
	MinR2     float64 `json:"min_r2"`
	// Runs holds, per run, each program's estimate and its net of the
	// floor, in the order of Steps.
	Runs []ValidationRun `json:"runs"`
	// PerStep and Intercept fit net = Intercept + PerStep·steps over all
	// runs by least squares; R2 is the fit's
	// coefficient of determination.
	PerStep   float64 `json:"ns_per_step"`
	Intercept float64 `json:"intercept_ns"`
	R2        float64 `json:"r2"`
	// MaxResidual is the largest distance of a run's net from the fit, in ns.
	MaxResidual float64 `json:"max_residual_ns"`
	// Spread is, per program, (max - min) / min of its estimate over the
	// runs, each moved back by its run's shift and factor (RunShifts,
	// RunFactors), and SpreadLimits what it is held to: MaxSpread.
	Spread       []float64 `json:"spread"`
	SpreadLimits []float64 `json:"spread_limits"`
	// RunShifts and RunFactors are each run's common move from the first
	// run, estimate ≈ shift + factor × the first run's, which the spread
	// leaves out: the machine's phase, moving every program alike.
	RunShifts  []float64 `json:"run_shifts_ns"`
	RunFactors []float64 `json:"run_factors"`
	// Combined holds each program's paired difference from the one before
	// it taken over all runs (the first is empty): their mean, its
	// interval √(Σ half-width²)/runs about it, as each run loads every
	// program anew.
	Combined []Estimate `json:"combined_differences"`
	// Resolution is the median half-width of Combined: the smallest
	// difference of neighbours the runs together tell apart; RunResolution
	// is one run's, the median half-width of each run's own differences.
	Resolution    float64 `json:"resolution_ns"`
	RunResolution float64 `json:"run_resolution_ns"`
	// Unjudged are the neighbouring programs whose steps cost less than
	// Resolution: their order is shown, not judged.
	Unjudged []string `json:"unjudged,omitempty"`
	// TimerResolution is the quantum of the timer's samples (1 ns for the
	// kernel's, far less for the stats timer's averages).
	TimerResolution float64 `json:"timer_resolution_ns"`
	// Fine is the fine rungs: the ladder program of bpf.FineBase steps
	// and the same with a few one-instruction fine steps each.
	Fine *FineValidation `json:"fine,omitempty"`
	// Failures says which checks failed; empty when all passed.
	Failures []string `json:"failures,omitempty"`
}

// FineValidation is what the fine rungs say: differences below the
// kernel timer's 1 ns quantum.
type FineValidation struct {
	Base  int   `json:"base_steps"` // the ladder program they build on
	Steps []int `json:"fine_steps"` // fine steps of each rung, ascending, from 1
	// BaseName and Names are the base program's and the rungs' names.
	BaseName string   `json:"base_program"`
	Names    []string `json:"programs"`
	// MaxError bounds each rung's difference from its fine steps' cost,
	// relative to it.
	MaxError float64 `json:"max_error"`
	// Differences holds, per run, each rung's paired difference from the
	// base program, and Neighbours from the rung below (the base for the
	// first).
	Differences [][]Estimate `json:"differences"`
	Neighbours  [][]Estimate `json:"neighbour_differences"`
	// Combined and CombinedNeighbours are those over all runs, as
	// Validation.Combined takes them.
	Combined           []Estimate `json:"combined_differences"`
	CombinedNeighbours []Estimate `json:"combined_neighbour_differences"`
	// PerStep and Intercept fit difference = Intercept + PerStep·steps
	// over all runs (least squares): the first fine step may cost more
	// than the others.
	PerStep   float64 `json:"ns_per_fine_step"`
	Intercept float64 `json:"intercept_ns"`
	// InOrder counts neighbouring rungs (the base first) that came out in
	// order, of Pairs, over all runs.
	InOrder int `json:"in_order"`
	Pairs   int `json:"pairs"`
	// Resolution is the median half-width of the rungs' combined
	// difference intervals.
	Resolution float64 `json:"resolution_ns"`
	// Checked says the order was checked: only a timer finer than the
	// kernel's 1 ns can see these steps.
	Checked bool `json:"checked"`
	// Unresolved are the rungs whose difference over all runs was known
	// less finely than its fine steps cost: the loads' placement moves a
	// rung by more than a cycle or two. They are shown, not judged.
	Unresolved []string `json:"unresolved,omitempty"`
}

// ValidationRun is one run of the ladder.
type ValidationRun struct {
	Estimates []Estimate `json:"estimates"`
	Net       []Estimate `json:"net"`
	// Steps holds the paired difference of each program from the one
	// before it on the ladder (the first is empty).
	Steps []Estimate `json:"differences"`
}

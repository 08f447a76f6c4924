package phases

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/safefs"
	"github.com/xdpmicro/xdpmicro/stats"
	"gonum.org/v1/gonum/stat"
)

const (
	// MaxAge is how long a run's floor counts. The fast phase's own floor
	// drifts over hours: on 2026-11-27 here it read 5.1 to 5.4 ns one hour
	// and 5.5 to 5.8 ns two hours later, v4's fizz 19.1 and 20.4 ns with
	// it, so that a day's median scaled runs at the fast phase ×0.92 as if
	// they had met a slow one. The last hour's runs know the phase the
	// machine is in now.
	MaxAge = time.Hour
	// kept is how many runs a key remembers, the newest.
	kept = 64
	// version is the file's schema; another is read as empty.
	version = 1
	// maxFile bounds what is read: kept runs of every key take far less.
	maxFile = 4 << 20
	// MaxHalf is the widest relative half-width a floor may have to be
	// remembered or recalled: one known to worse than the tolerance that
	// tells phases apart cannot say which phase it met, and the fastest
	// floor stands for every later run. One run of ten samples read the
	// floor 2.06 ns ±19 % where its neighbours read 5.3 to 5.8 ns ±3 %,
	// and scaled every run after it ×2.8, their intervals ±55 %.
	MaxHalf = stats.PhaseTolerance
)

// Key says which runs' floors compare: the same boot of the same machine,
// the same CPU, the same program type's floor, measured beside as many
// loads (Design).
type Key struct {
	Boot string
	CPU  int
	Type string
	// Design is how the run's loads were grouped (NewDesign); "" for any.
	// The floor reads higher beside more loads: 5.4 to 5.6 ns in groups
	// of two loads of v4, 5.6 to 5.9 in groups of eight, here.
	Design string
	// Frames names the frames the floor's level is read from (NewFrames);
	// "" for any. The floor costs what its frame costs: on 2026-11-28
	// here an ICMP echo of 98 bytes read 5.24 ns beside 6.2 ns for v4's
	// UDP frames of 60, and xdp-tutorial's program was scaled ×1.19 to
	// the bundled program's history, every figure ±7 to ±12 %.
	Frames string
}

func (k Key) String() string {
	s := fmt.Sprintf("%s/cpu%d/%s", k.Boot, k.CPU, k.Type)
	if k.Design != "" {
		s += "/" + k.Design
	}
	if k.Frames != "" {
		s += "/" + k.Frames
	}
	return s
}

// NewFrames names a set of frames, given in hex, in any order: the first
// bytes of the SHA-256 of them sorted.
func NewFrames(hexFrames []string) string {
	sorted := slices.Clone(hexFrames)
	slices.Sort(sorted)
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	return "frames-" + hex.EncodeToString(sum[:6])
}

// NewDesign names a run's grouping: programs builds, perGroup loads of
// each and floorPerGroup of the floor in every group.
func NewDesign(programs, perGroup, floorPerGroup int) string {
	return fmt.Sprintf("%dx%d+%d", programs, perGroup, floorPerGroup)
}

// Level is one run's floor in its own fastest phase, and the relative
// half-width of its interval.
type Level struct {
	At    time.Time `json:"at"`
	Floor float64   `json:"floor_ns"`
	Half  float64   `json:"half,omitempty"`
}

// History is every key's recent levels, oldest first.
type History struct {
	Version int                `json:"version"`
	Levels  map[string][]Level `json:"levels"`
}

// Reference is the machine's fast phase as the history knows it.
type Reference struct {
	// Floor is the median floor of the runs that met the fast phase:
	// those within stats.PhaseTolerance of the fastest that a quorum of
	// them read.
	Floor float64
	// RelHalf is the relative half-width of Floor's interval: Student's t
	// over those runs' floors, or the one run's own.
	RelHalf float64
	// Runs is how many runs met the fast phase, of All remembered.
	Runs, All int
	// Drift is the variance of those runs' floors, on the log scale, beyond
	// what each one's own interval says of it: how far the machine moved
	// the fast phase itself from run to run. DriftKnown is false for fewer
	// than minDriftRuns runs.
	Drift      float64
	DriftKnown bool
}

// minDriftRuns is the fewest runs whose floors' spread is taken for the
// fast phase's drift.
const minDriftRuns = 5

// halfPerSD turns a remembered 95 % half-width into a standard deviation.
const halfPerSD = 1.96

// DefaultPath is the history's path in the user's cache directory; empty
// where the user has none.
func DefaultPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "xdpmicro", "phases.json")
}

// Boot identifies this boot of the machine.
func Boot() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("boot id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// ErrHistory reports a history file that cannot be read as one.
var ErrHistory = errors.New("phase history unreadable")

// Load reads the history at path; a missing file is an empty history.
func Load(path string) (History, error) {
	h := History{Version: version, Levels: map[string][]Level{}}
	data, err := safefs.ReadFile(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	return parse(path, data)
}

// Save writes the history to path, atomically, making its directory.
func (h History) Save(path string) error {
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	d, err := safefs.OpenDir(filepath.Dir(path), true)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(filepath.Base(path), append(data, '\n'))
}

// Add remembers a run's fast-phase floor and its interval's relative
// half-width, unless it is wider than MaxHalf, forgetting what is past
// MaxAge and all but the newest runs of the key.
func (h *History) Add(k Key, floor, half float64, now time.Time) {
	if !(floor > 0) || math.IsInf(floor, 0) || !precise(half) {
		return
	}
	if h.Levels == nil {
		h.Levels = map[string][]Level{}
	}
	h.Version = version
	levels := append(recent(h.Levels[k.String()], now), Level{At: now, Floor: floor, Half: half})
	h.Levels[k.String()] = levels[max(0, len(levels)-kept):]
	for key, l := range h.Levels {
		if len(recent(l, now)) == 0 {
			delete(h.Levels, key) // another boot's, or past MaxAge
		}
	}
}

// Reference is the key's fast phase over the runs of the last MaxAge, at
// confidence; ok is false where none is remembered.
func (h History) Reference(k Key, now time.Time, confidence float64) (ref Reference, ok bool) {
	levels := recent(h.Levels[k.String()], now)
	if len(levels) == 0 {
		return Reference{}, false
	}
	lo := fastest(levels)
	var fast, logs []float64
	half, noise := 0.0, 0.0
	for _, l := range levels {
		if l.Floor >= lo && l.Floor <= lo*(1+stats.PhaseTolerance) {
			fast, half = append(fast, l.Floor), l.Half
			logs = append(logs, math.Log(l.Floor))
			noise += math.Pow(l.Half/halfPerSD, 2)
		}
	}
	slices.Sort(fast)
	ref = Reference{Floor: stat.Quantile(0.5, stat.Empirical, fast, nil), Runs: len(fast), All: len(levels), RelHalf: half}
	if n := float64(len(fast)); n > 1 {
		ref.RelHalf = stats.TQuantile(confidence, n-1) * stat.StdDev(fast, nil) / math.Sqrt(n) / ref.Floor
	}
	if len(fast) >= minDriftRuns {
		ref.Drift, ref.DriftKnown = max(0, stat.Variance(logs, nil)-noise/float64(len(fast))), true
	}
	return ref, true
}

// quorum is how many remembered runs must agree on the fastest phase
// before their floor is taken for it: one low floor alone is more likely a
// run that misread its phase than a phase. On 2026-11-27 here one run with
// a single fast group of eleven read its floor 4.12 ns, below any floor
// measured that day (5.1 to 5.6 ns), and every run after it was scaled
// ×0.45 to it, ±45 %.
const quorum = 3

// fastest is the lowest floor of levels that at least quorum of them (a
// quarter of them, for fewer than twelve) read within stats.PhaseTolerance
// of, and half of them for more: the phase the machine is in as often as
// not, which a few runs as fast as it once was do not make (on 2026-11-28
// two runs at 5.5 ns and one at 5.9 set the reference for 40 runs of 6.1
// to 6.7, each taken for another phase, ±7 %; with half, 15 of 73 runs
// there read more than the tolerance off it, not 55, and it moved 6.27 to
// 6.24 ns over the last twelve where the quarter of the newest 16 moved
// 6.35 to 6.13 and with it every figure). The lowest, where none is.
func fastest(levels []Level) float64 {
	floors := make([]float64, len(levels))
	for i, l := range levels {
		floors[i] = l.Floor
	}
	slices.Sort(floors)
	need := max(min(quorum, (len(floors)+3)/4), len(floors)/2)
	for i, lo := range floors {
		n := 0
		for _, f := range floors[i:] {
			if f <= lo*(1+stats.PhaseTolerance) {
				n++
			}
		}
		if n >= need {
			return lo
		}
	}
	return floors[0]
}

// precise says whether a floor's relative half-width is within MaxHalf.
func precise(half float64) bool { return half >= 0 && half <= MaxHalf }

// recent is the levels of the last MaxAge, none from the future, each
// precise enough to count.
func recent(levels []Level, now time.Time) []Level {
	var out []Level
	for _, l := range levels {
		if age := now.Sub(l.At); age >= 0 && age <= MaxAge && l.Floor > 0 && precise(l.Half) {
			out = append(out, l)
		}
	}
	return out
}

package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/xdpmicro/xdpmicro/internal/safefs"

	"github.com/xdpmicro/xdpmicro/stats"
)

// Replay is a capture replayed in its order through a program, the maps
// carried from one packet to the next (xdpmicro replay): each packet's
// path, the traffic's cost per packet, and the paths' shares. With two
// builds, Before is the first's replay of the same capture and Change
// the difference.
type Replay struct {
	// Schema is ReplaySchema: a saved replay says what it is.
	Schema  string `json:"schema"`
	Program string `json:"program"`
	Object  string `json:"object"`
	Type    string `json:"type"`
	Capture string `json:"capture"`
	// Synthetic is the traffic made in place of a capture, if it was.
	Synthetic *ReplaySynthetic `json:"synthetic,omitempty"`
	// Traffic is a digest of the packets replayed, in their order
	// (SHA-256, hex): a baseline is compared only on the same traffic.
	Traffic string `json:"traffic"`
	// Packets is how many packets were replayed, Skipped how many of the
	// capture's were not (frames shorter than an Ethernet header, or past
	// the limit).
	Packets int `json:"packets"`
	Skipped int `json:"skipped,omitempty"`
	// Replays is how many times the capture was timed, each on a load of
	// its own whose maps start as loaded (and --map-init).
	Replays int `json:"replays"`
	// Timer says what timed each packet (ReplayTimer).
	Timer string `json:"timer"`
	// Mean is the traffic's mean cost per packet, net of the floor, ns:
	// the mean of the replays' means, with an interval meant to hold the
	// next replay's mean (a prediction interval over the replays).
	Mean stats.Estimate `json:"mean_ns"`
	// ReplayMeans are each replay's mean per packet, net of the floor;
	// Floor is the floor's mean per run, as the program was timed.
	ReplayMeans []float64 `json:"replay_means_ns"`
	Floor       float64   `json:"floor_ns"`
	// FloorWarm is the floor's cost a run in a warm loop of repeats, as
	// bench's figures hold it beside a program's own: Mean plus it is in
	// bench's terms (InBenchTerms), where Floor is a call of one run's.
	FloorWarm float64 `json:"floor_warm_ns,omitempty"`
	// P50, P90 and P99 are per packet, over every timed run of every
	// replay, net of the floor's mean.
	P50 float64 `json:"p50_ns"`
	P90 float64 `json:"p90_ns"`
	P99 float64 `json:"p99_ns"`
	// Kinds are the paths gathered by what they did: the same action and
	// the same map effects kind (a new flow, a hit), the most packets
	// first; Paths are the path groups themselves, by exact path.
	Kinds []ReplayKind `json:"kinds"`
	Paths []ReplayPath `json:"paths"`
	// Sequence is the cost per packet over the sequence, in at most
	// MaxReplayBins bins of consecutive packets: what the HTML page plots.
	Sequence []ReplayBin `json:"sequence,omitempty"`
	// PacketList is each packet's place, path and mean time over the
	// replays, for the first KeptPackets packets; PacketsLeftOut counts
	// the rest (their figures are in the totals).
	PacketList     []ReplayPacket `json:"packet_list"`
	PacketsLeftOut int            `json:"packets_left_out,omitempty"`
	// ActionMismatches counts timed runs whose action was not the one
	// the counting run took for that packet: the program's state strayed
	// from its instrumented copy's (a clock, a random number).
	ActionMismatches int `json:"action_mismatches,omitempty"`
	// PPSPerCore is the packets a second one core runs at Mean (1e9 /
	// Mean: the program alone, no driver); Cores is the cores RatePPS
	// packets a second take at Mean, with --rate.
	PPSPerCore float64 `json:"pps_per_core,omitempty"`
	RatePPS    float64 `json:"rate_pps,omitempty"`
	Cores      float64 `json:"cores,omitempty"`
	// Reference is the kernel's run-time statistics' mean over one more
	// replay, when asked for: an independent figure to set beside Mean.
	Reference *ReplayReference `json:"run_time_stats,omitempty"`
	Notes     []string         `json:"notes,omitempty"`
	// Before is the first build's replay and Change the comparison, with
	// --before and --after; nil otherwise.
	Before *Replay           `json:"before,omitempty"`
	Change *ReplayChange     `json:"change,omitempty"`
	Env    ReplayEnvironment `json:"environment"`
}

// ReplaySchema identifies a replay's JSON; bump it when a field's
// meaning changes.
const ReplaySchema = "xdpmicro.replay/v1"

// ReplayTimer is the replay's timer: the kernel's own figure for each
// BPF_PROG_TEST_RUN call of one run (its duration, in whole ns).
const ReplayTimer = "test_run_duration"

// ReplayPath is a path group: the packets that ran the same blocks as
// often (so the same instructions) to the same action.
type ReplayPath struct {
	ID           int    `json:"id"`
	Name         string `json:"name"`
	Action       string `json:"action"`
	Instructions uint64 `json:"instructions"`
	// First is the place (from 0) of the first packet that took it.
	First   int `json:"first_packet"`
	Packets int `json:"packets"`
	// PacketShare and TimeShare are its shares of the packets and of the
	// traffic's time net of the floor, from 0 to 1.
	PacketShare float64 `json:"packet_share"`
	TimeShare   float64 `json:"time_share"`
	// Mean is its packets' mean cost net of the floor, ns, with the
	// replays' spread as a prediction interval; ReplayMeans are each
	// replay's (a baseline's comparison reads them).
	Mean        stats.Estimate `json:"mean_ns"`
	ReplayMeans []float64      `json:"replay_means_ns,omitempty"`
	// Effects are the map effects kinds its packets made, as read on the
	// packets whose effects were read (EffectsRead of them), most first.
	Effects     []ReplayEffects `json:"effects,omitempty"`
	EffectsRead int             `json:"effects_read"`
}

// ReplayKind is the paths that made one kind of map effects to one
// action: "XDP_TX: flows: miss + insert" holds every new flow's path,
// whatever its instructions.
type ReplayKind struct {
	Name         string         `json:"name"`
	Packets      int            `json:"packets"`
	PacketShare  float64        `json:"packet_share"`
	TimeShare    float64        `json:"time_share"`
	Mean         stats.Estimate `json:"mean_ns"`
	ReplayMeans  []float64      `json:"replay_means_ns,omitempty"`
	Paths        []int          `json:"paths"`
	Instructions [2]uint64      `json:"instructions_range"`
}

// ReplayEffects is one kind of map effects, and how many of a path's
// packets read made it.
type ReplayEffects struct {
	Kind    string      `json:"kind"`
	Changes []MapChange `json:"changes,omitempty"`
	Packets int         `json:"packets"`
}

// MapChange is what one run did to one map, counted by entries: a kind
// of effects, not the entries themselves.
type MapChange struct {
	Map      string `json:"map"`
	MapType  string `json:"map_type"`
	Inserted int    `json:"inserted,omitempty"`
	Updated  int    `json:"updated,omitempty"`
	Deleted  int    `json:"deleted,omitempty"`
	Pushed   int    `json:"pushed,omitempty"`
}

// ReplayPacket is one packet of the sequence.
type ReplayPacket struct {
	Index int `json:"i"`
	Path  int `json:"path"`
	// NS is its mean cost over the replays, net of the floor's mean.
	NS float64 `json:"ns"`
}

// ReplayReference is the traffic's mean from the kernel's run-time
// statistics (kernel.bpf_stats_enabled) over one more replay: the growth
// of the program's run_time_ns over its run_cnt, less the floor's
// measured the same way.
type ReplayReference struct {
	Mean  float64 `json:"mean_ns"`
	Raw   float64 `json:"raw_ns"`
	Floor float64 `json:"floor_ns"`
}

// ReplaySynthetic is synthetic traffic as made: Packets packets of the
// case's packet over Flows flows drawn by Law (Zipf's exponent, 0 for
// uniform), NewFlows of them each opening a new flow, from Seed.
type ReplaySynthetic struct {
	Case     string  `json:"case"`
	Flows    int     `json:"flows"`
	Zipf     float64 `json:"zipf,omitempty"`
	NewFlows float64 `json:"new_flows"`
	Packets  int     `json:"packets"`
	Seed     uint64  `json:"seed"`
}

// MaxReplayBins is the most bins Sequence has: a plot's points.
const MaxReplayBins = 1000

// ReplayBin is consecutive packets of the sequence, from First, Packets
// of them: their mean cost net of the floor over the replays, and the
// lowest and highest replay's mean (each net of its own floor).
type ReplayBin struct {
	First   int     `json:"first"`
	Packets int     `json:"packets"`
	Mean    float64 `json:"mean_ns"`
	Low     float64 `json:"low_ns"`
	High    float64 `json:"high_ns"`
}

// ReplayChange compares two builds' replays of the same capture.
type ReplayChange struct {
	// Against says what the before side is: "lock-step" for two builds
	// replayed in turns, or the baseline's name; Method how the
	// interval was had.
	Against string `json:"against,omitempty"`
	Method  string `json:"method,omitempty"`
	// Notes say what the comparison's reader should know: a host that
	// changed speed between a baseline and the replay.
	Notes []string `json:"notes,omitempty"`
	// Mean is the change of the mean per packet, in %, with an interval
	// from the replays' spread; Verdict judges it.
	Mean    stats.Estimate `json:"mean_percent"`
	MeanNS  float64        `json:"mean_ns"`
	Verdict string         `json:"verdict"`
	// Kinds and Paths are the change per kind of packets and per path
	// group, by the after build's: the same packets' cost in each build.
	Kinds []ReplayPathChange `json:"kinds"`
	Paths []ReplayPathChange `json:"paths"`
	// Rate is the packet rate the cores are given at (packets a second),
	// 0 without --rate; Cores is the change in cores at it, PPSPerCore
	// each build's packets a second per core at its mean.
	Rate       float64    `json:"rate_pps,omitempty"`
	Cores      float64    `json:"cores,omitempty"`
	PPSPerCore [2]float64 `json:"pps_per_core"`
}

// Verdicts of a group that a comparison with a saved replay met on one
// side only: it has no change.
const (
	ReplayOnlyAfter  = "not in the baseline"
	ReplayOnlyBefore = "only in the baseline"
)

// OneSided says the group was met on one side only.
func (p ReplayPathChange) OneSided() bool {
	return p.Verdict == ReplayOnlyAfter || p.Verdict == ReplayOnlyBefore
}

// ReplayPathChange is one path group's change.
type ReplayPathChange struct {
	Name    string         `json:"name"`
	Packets int            `json:"packets"`
	Before  float64        `json:"before_ns"`
	After   float64        `json:"after_ns"`
	Change  stats.Estimate `json:"change_percent"`
	Verdict string         `json:"verdict"`
	// BeforeIn and AfterIn are the most instructions each build ran on
	// the first packets of the group's paths.
	BeforeIn uint64 `json:"before_instructions"`
	AfterIn  uint64 `json:"after_instructions"`
}

// ReplayEnvironment is where the replay ran and how long it took.
type ReplayEnvironment struct {
	Kernel   string        `json:"kernel"`
	CPUModel string        `json:"cpu_model"`
	CPU      int           `json:"cpu"`
	Start    time.Time     `json:"start"`
	Wall     time.Duration `json:"wall_ns"`
}

// ReplayBaselinePath is where the replay baseline of that name lives in
// dir: beside bench's baselines, named apart, as the two cannot be
// compared with each other.
func ReplayBaselinePath(dir, name string) (string, error) {
	path, err := BaselinePath(dir, name)
	if err != nil {
		return "", err
	}
	return path[:len(path)-len(".json")] + ".replay.json", nil
}

// SaveBaseline stores the replay as a baseline, atomically: of a
// comparison with an earlier baseline, the replay itself, so that each
// run can be saved as the next one's baseline.
func (r *Replay) SaveBaseline(dir, name string) (string, error) {
	own := *r
	own.Before, own.Change = nil, nil
	r = &own
	path, err := ReplayBaselinePath(dir, name)
	if err != nil {
		return "", err
	}
	d, err := safefs.OpenDir(dir, true)
	if err != nil {
		return "", fmt.Errorf("baseline directory: %w", err)
	}
	defer d.Close()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return "", err
	}
	if err := d.WriteFile(filepath.Base(path), buf.Bytes()); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// LoadReplayBaseline reads the replay baseline of that name from dir.
func LoadReplayBaseline(dir, name string) (*Replay, error) {
	path, err := ReplayBaselinePath(dir, name)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w %q in %s (a replay's, %s)", ErrNoBaseline, name, dir, filepath.Base(path))
	}
	data, err := safefs.ReadFile(path, MaxSaved)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	return ParseReplay(path, data)
}

// ParseReplay reads a saved replay from data, path naming it in errors:
// one build's, with the figures a comparison reads.
func ParseReplay(path string, data []byte) (*Replay, error) {
	var r Replay
	if err := decodeSaved(path, data, &r); err != nil {
		return nil, err
	}
	if err := checkReplay(&r); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	return &r, nil
}

// checkReplay refuses a saved replay a comparison cannot stand on.
func checkReplay(r *Replay) error {
	switch {
	case r.Schema != ReplaySchema:
		return fmt.Errorf("schema %q, want %q (a replay saved by --save-baseline)", r.Schema, ReplaySchema)
	case r.Change != nil || r.Before != nil:
		return errors.New("a comparison, not one build's replay")
	case r.Packets < 1 || r.Traffic == "":
		return errors.New("no packets, or no digest of them")
	case r.Replays < 2 || len(r.ReplayMeans) != r.Replays:
		return fmt.Errorf("%d replays' means of %d: want 2 or more, one a replay", len(r.ReplayMeans), r.Replays)
	}
	for _, k := range r.Kinds {
		if len(k.ReplayMeans) > r.Replays {
			return fmt.Errorf("kind %q: %d replays' means of %d", k.Name, len(k.ReplayMeans), r.Replays)
		}
	}
	for _, p := range r.Paths {
		if len(p.ReplayMeans) > r.Replays {
			return fmt.Errorf("path %d: %d replays' means of %d", p.ID, len(p.ReplayMeans), r.Replays)
		}
	}
	return checkFigures(reflect.ValueOf(r).Elem(), "")
}

// InBenchTerms is e, a figure net of the floor, as bench would give it:
// with the floor's cost a run in a warm loop (FloorWarm) added back.
func (r *Replay) InBenchTerms(e stats.Estimate) stats.Estimate {
	return stats.Estimate{Point: e.Point + r.FloorWarm, Lower: e.Lower + r.FloorWarm, Upper: e.Upper + r.FloorWarm}
}

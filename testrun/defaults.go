package testrun

// The XDP dispatcher's room, which the loads held at once must fit.
const (
	// DispatcherMax is how many programs the kernel's XDP dispatcher holds
	// (BPF_DISPATCHER_MAX): anchors hold at most that many at once.
	DispatcherMax = 48
)

// dispatcherSpare is the room in the XDP dispatcher a run leaves to others:
// programs attached to interfaces in native mode, another xdpmicro run on
// the other CPUs.
const dispatcherSpare = 4

// MostLoads is the most loads of each of programs programs that fit the
// XDP dispatcher at once beside the floor's (FloorLoads) and what others
// may hold, at least one.
func MostLoads(programs int) int {
	k := 1
	for (k+1)*programs+FloorLoads(k+1) <= DispatcherMax-dispatcherSpare {
		k++
	}
	return k
}

// FloorLoads is how many times the floor is loaded beside programs loaded
// placements times each: a quarter as often, at least twice once a program
// is loaded more than once, so that the net holds the floor's placement.
func FloorLoads(placements int) int {
	if placements <= 1 {
		return 1
	}
	return max(2, (placements+3)/4)
}

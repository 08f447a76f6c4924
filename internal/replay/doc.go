// Package replay runs a capture's packets in their order through a
// program, the maps carried from one packet to the next as production
// would leave them (xdpmicro replay). It owns reading the capture as a
// stream, the counting replay on the program's instrumented copy (each
// packet's path, its instructions, its map effects kind where read), the
// timed replays, each on a fresh load (the kernel's duration of each
// packet's run, beside the floor's), and the figures: the traffic's mean
// per packet with an interval meant to hold the next replay's, its
// percentiles, the path groups' shares of packets and of time, and two
// builds' change on the same traffic. testrun loads and runs; results
// holds what it finds (results.Replay); report renders it.
package replay

package testrun

import (
	"slices"
)

// notes gathers what loading changed of each measured object of its own
// accord, and which maps the checking run's changes are not shown for
// (after the checking run: it finds the maps user space cannot read),
// each note once, prefixed with the object's name when several objects
// are measured.
func (p *plan) notes(progs []*program) []string {
	var objects []string
	for i, c := range p.picked {
		if !p.isFloor(i) && !slices.Contains(objects, c.Object.Name) {
			objects = append(objects, c.Object.Name)
		}
	}
	var notes []string
	if p.linkLayer {
		notes = append(notes, "af_packet: each frame is given to the kernel behind a copy of its Ethernet header, which the kernel strips: "+
			"the program sees the frame from its Ethernet header on, as on an AF_PACKET socket (frames are shown as given, 14 bytes longer)")
	}
	add := func(object, note string) {
		if note == "" {
			return
		}
		if len(objects) > 1 {
			note = object + ": " + note
		}
		if !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	for i, c := range p.picked {
		if p.isFloor(i) {
			continue
		}
		for _, n := range c.Notes {
			add(c.Object.Name, n)
		}
		for _, o := range p.others[i] {
			for _, n := range o.Chosen.Notes {
				add(c.Object.Name, o.Prefix+" "+n)
			}
		}
		if i < len(progs) {
			add(c.Object.Name, progs[i].UnwatchedNote())
		}
	}
	return notes
}

// Package worstfmt renders a search's costliest packets (results.Worst):
// a table for people, JSON, and the packets as a packet file that bench
// --packets takes. report's registry of formats calls it; it renders
// what results holds, and the packets' frames as cases, and searches or
// loads nothing.
package worstfmt

// Package phases remembers the floor the machine read in its fast phase,
// run after run: a host that slows its guest for seconds to minutes leaves
// a run that met only a slow phase nothing in its own samples to tell a
// slow phase from a slow machine, and earlier runs on the same boot and
// CPU do know. The history is a small JSON file in the user's cache
// directory, read and written through internal/safefs.
package phases

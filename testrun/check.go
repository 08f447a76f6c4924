package testrun

import "context"

// Check loads the programs and runs every case once through each, as Run's
// checking phase does, and measures nothing: each case's action, its effects
// on the maps, and the frame as the program left it. Cases' expectations are
// held as in Run. Its checking runs take the CPU as Run's do, keeping Other
// runs off it or waiting for it, until ctx is done.
func Check(ctx context.Context, cfg Config) (Result, error) {
	cfg.Samples = max(cfg.Samples, MinSamples) // no samples are taken
	cfg.Floor = nil
	p, progs, res, err := begin(ctx, cfg)
	defer p.releaseCPU() // last: after the programs are closed
	defer closeAll(progs)
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

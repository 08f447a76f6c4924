package testrun

// Check loads the programs and runs every case once through each, as Run's
// checking phase does, and measures nothing: each case's action, its effects
// on the maps, and the frame as the program left it. Cases' expectations are
// held as in Run.
func Check(cfg Config) (Result, error) {
	cfg.Samples = max(cfg.Samples, MinSamples) // no samples are taken
	cfg.Floor = nil
	_, progs, res, err := begin(cfg)
	defer closeAll(progs)
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

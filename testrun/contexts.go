package testrun

// checkContexts checks every case's context against every program's type
// before anything is loaded: bad input is told as such, whatever the
// privileges.
func (p *plan) checkContexts() error {
	for _, c := range p.picked {
		for _, k := range p.cfg.Cases {
			if _, err := caseContext(c.Info.Type, k); err != nil {
				return err
			}
		}
	}
	return nil
}

package testrun

import (
	"fmt"

	"github.com/xdpmicro/xdpmicro/internal/object"
)

// checkContexts checks every case's context against every program's type
// before anything is loaded: bad input is told as such, whatever the
// privileges.
func (p *plan) checkContexts() error {
	for _, c := range p.picked {
		for _, k := range p.cfg.Cases {
			if _, err := object.ContextIn(c.Info.Type, k); err != nil {
				return fmt.Errorf("case %s: %w", k.Name, err)
			}
		}
	}
	return nil
}

package kernels

import (
	"encoding/json"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// bad marks an error as bad input, its message unchanged.
type bad struct{ error }

func (b bad) Unwrap() []error { return []error{b.error, badinput.Err} }

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }

package kernels

import (
	"encoding/json"

	"github.com/xdpmicro/xdpmicro/internal/badinput"
)

// bad marks an error as bad input, its message unchanged.
func bad(err error) error { return badinput.Wrap(err) }

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }

package jsonsize_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	. "github.com/xdpmicro/xdpmicro/internal/jsonsize"
	"github.com/xdpmicro/xdpmicro/results"
)

// kept is what json.Unmarshal leaves allocated decoding data into a new
// T, data's own bytes aside: the heap in use once it is done, collected.
func kept[T any](t *testing.T, data []byte) int64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := new(T)
	_ = json.Unmarshal(data, v)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	var zero T
	return int64(after.HeapAlloc) - int64(before.HeapAlloc) - int64(unsafe.Sizeof(zero)) // the value itself, which the caller has
}

type inner struct {
	A float64   `json:"a"`
	B string    `json:"b"`
	C []float64 `json:"c"`
}

type embedded struct{ E []inner }

type doc struct {
	*embedded
	Items  []inner            `json:"items"`
	Ptr    *inner             `json:"ptr"`
	Map    map[string][]inner `json:"map"`
	Any    any                `json:"any"`
	When   time.Time          `json:"when"`
	Ignore []inner            `json:"-"`
	Array  [4]inner           `json:"array"`
}

// Bytes bounds from above what json.Unmarshal allocates, whatever the
// shape: empty objects by the thousand, long arrays of small numbers,
// maps, interfaces, pointers, promoted fields, keys in another case or
// escaped.
func TestBytesBound(t *testing.T) {
	many := func(item string, n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	for name, data := range map[string]string{
		"empty objects":  `{"items":[` + many("{}", 20000) + `]}`,
		"zeros":          `{"items":[{"c":[` + many("0", 100000) + `]}]}`,
		"strings":        `{"items":[` + many(`{"b":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`, 5000) + `]}`,
		"pointers":       `{"ptr":{"c":[1,2,3]},"items":[` + many(`{"a":1}`, 1000) + `]}`,
		"map":            `{"map":{` + many(`"k":[{}]`, 1) + `,"k2":[` + many("{}", 1000) + `]}}`,
		"any":            `{"any":[` + many(`{"x":[1,"a",{}]}`, 5000) + `]}`,
		"promoted":       `{"E":[` + many("{}", 5000) + `]}`,
		"folded":         `{"ITEMS":[` + many("{}", 5000) + `],"Items":[` + many("{}", 5000) + `]}`,
		"escaped key":    `{"it\u0065ms":[` + many("{}", 5000) + `]}`,
		"time":           `{"when":"2026-01-02T03:04:05+01:00"}`,
		"ignored":        `{"Ignore":[` + many("{}", 5000) + `],"unknown":[` + many("{}", 5000) + `]}`,
		"array in place": `{"array":[` + many(`{"c":[1,2,3,4,5,6,7,8]}`, 10) + `]}`,
		"nulls":          `{"ptr":null,"items":null,"any":null}`,
	} {
		n, err := Bytes([]byte(data), reflect.TypeFor[*doc](), 1<<40)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := kept[doc](t, []byte(data)); got > n {
			t.Errorf("%s: json.Unmarshal kept %d bytes, more than the bound %d", name, got, n)
		}
	}
}

// Real saved results keep less than their bound, which is within 3.5
// times their size (small ones have the decoder's 64 KiB in it).
func TestSavedResults(t *testing.T) {
	for _, path := range []string{"../engine/testdata/default.json", "../engine/testdata/before-after.json", "../engine/testdata/flat.json", "../../cmd/xdpmicro/testdata/saved-2c8bdbc.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Bytes(data, reflect.TypeFor[*results.Run](), 1<<40)
		if err != nil {
			t.Fatal(err)
		}
		if got := kept[results.Run](t, data); got > n {
			t.Errorf("%s: json.Unmarshal kept %d bytes, more than the bound %d", path, got, n)
		}
		t.Logf("%s: %d bytes of JSON, bound %d (%.2f×)", path, len(data), n, float64(n)/float64(len(data)))
	}
}

// Check refuses a document past its budget as bad input, and leaves
// what is not JSON to json.Unmarshal.
func TestCheck(t *testing.T) {
	data := []byte(`{"items":[` + strings.Repeat("{},", 10000) + `{}]}`)
	if err := Check(data, new(doc), 512<<10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("10,001 empty items within 512 KiB: %v", err)
	}
	if err := Check(data, new(doc), 1<<30); err != nil {
		t.Errorf("refused within 1 GiB: %v", err)
	}
	for _, bad := range []string{`{"items":[`, `{"items" 1}`, `[}`, `"`, ``, `{"a":1}x`, strings.Repeat("[", 20000)} {
		if err := Check([]byte(bad), new(doc), 1<<20); err != nil {
			t.Errorf("%q: %v, want it left to json.Unmarshal", bad, err)
		}
	}
}

// FuzzBytes: any data that encoding/json takes as JSON, the scanner
// reads too (else Check would refuse a file json.Unmarshal reads), into
// a saved result's types, and nothing panics.
func FuzzBytes(f *testing.F) {
	for _, seed := range []string{`{"programs":[{"cases":[{"name":"a","samples_ns":[1,2.5e3,-0]}]}]}`, `{"ProGrams":null}`,
		`{"a\u0062":"\"\\"}`, `[{}]`, ` 1 `, `"x"`, `{"programs":[{"placements":[{"placements":[]}]}]}`, `{"environment":{"cpu":1e400}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Bytes(data, reflect.TypeFor[*results.Run](), 1<<40)
		if err != nil && json.Valid(data) {
			t.Errorf("valid JSON refused: %v", err)
		}
	})
}

package mapinit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzJSONScanner: any text gives jsonScanner's tokens as
// encoding/json's Decoder gives them, and an error where it errs, read
// whole and through a reader a byte at a time.
func FuzzJSONScanner(f *testing.F) {
	for _, seed := range []string{
		`{"maps": {"ring": [{"key": 0, "value": 1.5e3}, {"key": "a\u0041\"", "value": [true, false, null]}]}}`,
		`[{"key":["0x05","0x00"],"value":["0x4d"],"formatted":{"key":5,"value":77}}]`,
		"{\"key\": 1}\n{\"key\": 2}\n", `{"a": 01}`, `[1,]`, `{"a" 1}`, `[-0.5e+2, -, 1e]`, `"x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := jsonTokens(json.NewDecoder(bytes.NewReader(data)))
		for _, s := range []*jsonScanner{newJSONScanner(data), newJSONStream(iotest.OneByteReader(bytes.NewReader(data)))} {
			got, err := jsonTokens(s)
			var syntax *jsonSyntaxError
			if wantErr == nil && errors.As(err, &syntax) && syntax.msg == "the JSON ends early" {
				// encoding/json's Token takes a text cut short for
				// its end: the scanner refuses it.
				err = nil
			}
			// Where both err, one may read a token more before it.
			n := min(len(got), len(want))
			if (err != nil) != (wantErr != nil) || fmt.Sprint(got[:n]) != fmt.Sprint(want[:n]) || err == nil && len(got) != len(want) {
				t.Fatalf("scanner: %v, %v\nencoding/json: %v, %v", got, err, want, wantErr)
			}
		}
	})
}

// jsonTokens reads every token, numbers as json.Number.
func jsonTokens(dec interface{ Token() (json.Token, error) }) ([]string, error) {
	if d, ok := dec.(*json.Decoder); ok {
		d.UseNumber()
	}
	var out []string
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, fmt.Sprintf("%T %v", t, t))
	}
}

package testrun

import "testing"

// readTestObject reads an object of bpf/testdata.
func readTestObject(t testing.TB, name string) Object {
	t.Helper()
	obj, err := ReadObject("../bpf/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// configInit fills maps.o's config map (object's tests read it too).
const configInit = `maps:
  config:
    - key: 0
      value: {port: 53, enabled: 1, limit: 59}
`

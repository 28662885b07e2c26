package practice

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParseExport feeds arbitrary bytes to the import parser. It must never
// panic; it either rejects the input with ErrBadImport or accepts it, and
// whatever it accepts must survive a round trip through the export encoder
// unchanged. Seeds are in testdata/fuzz/FuzzParseExport.
func FuzzParseExport(f *testing.F) {
	b := mustLoad(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExport(data, b)
		if err != nil {
			if !errors.Is(err, ErrBadImport) {
				t.Fatalf("error is not ErrBadImport: %v", err)
			}
			return
		}
		again, err := encodeExport(e)
		if err != nil {
			t.Fatalf("accepted input does not encode: %v", err)
		}
		e2, err := ParseExport(again, b)
		if err != nil {
			t.Fatalf("re-encoded export is rejected: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip changed the export:\n%+v\n%+v", e, e2)
		}
	})
}

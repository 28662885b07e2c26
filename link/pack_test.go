package link

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPack(t *testing.T) {
	for _, text := range []string{"", "publish pay-1 amount=1\n", strings.Repeat("deliver crash=before-ack\n", 2000), "ü € \x00"} {
		p := Pack(text)
		if !strings.HasPrefix(p, Version) || strings.ContainsAny(p, "+/=%&?# ") {
			t.Errorf("Pack(%.20q) = %.40q: not a version letter and URL-safe characters", text, p)
		}
		back, err := Unpack(p)
		if err != nil || back != text {
			t.Errorf("Unpack(Pack(%.20q)) = %.20q, %v", text, back, err)
		}
	}
}

func TestUnpackErrors(t *testing.T) {
	deflate := func(b []byte) string {
		var buf bytes.Buffer
		zw, _ := flate.NewWriter(&buf, flate.BestCompression)
		zw.Write(b)
		zw.Close()
		return Version + base64.RawURLEncoding.EncodeToString(buf.Bytes())
	}
	for _, tc := range []struct {
		name, packed string
		want         Error
	}{
		{"too long to look at", Version + strings.Repeat("A", MaxPacked), Error{Key: "pl.long", Args: []any{MaxPacked + 1, MaxPacked}}},
		{"no version letter", "", Error{Key: "pl.version", Args: []any{Version}}},
		{"a version letter only", Version, Error{Key: "pl.version", Args: []any{Version}}},
		{"another version", "2AAAA", Error{Key: "pl.version", Args: []any{Version}}},
		{"not base64url", Version + "**", Error{Key: "pl.base64"}},
		{"not deflate", Version + base64.RawURLEncoding.EncodeToString([]byte{0xff, 0xff, 0xff}), Error{Key: "pl.inflate"}},
		// A small link that inflates past the limit is refused at the limit.
		{"a bomb", deflate(make([]byte, 10<<20)), Error{Key: "pl.big", Args: []any{MaxText}}},
		{"one byte past the limit", deflate(make([]byte, MaxText+1)), Error{Key: "pl.big", Args: []any{MaxText}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := Unpack(tc.packed)
			var e *Error
			if !errors.As(err, &e) || !reflect.DeepEqual(*e, tc.want) {
				t.Fatalf("Unpack = %.20q, %v; want %v", text, err, &tc.want)
			}
		})
	}
	if text, err := Unpack(Pack(strings.Repeat("a", MaxText))); err != nil || len(text) != MaxText {
		t.Errorf("a text of exactly the limit: %d bytes, %v", len(text), err)
	}
}

// FuzzUnpack: Unpack never panics and never returns more than MaxText.
func FuzzUnpack(f *testing.F) {
	f.Add(Pack("publish pay-1 amount=1\n"))
	f.Add("1")
	f.Add("1AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		text, err := Unpack(s)
		if err == nil && len(text) > MaxText {
			t.Fatalf("unpacked %d bytes, over the limit", len(text))
		}
	})
}

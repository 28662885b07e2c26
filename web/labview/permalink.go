package labview

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/idempotency-lab/lab/sim"
)

// MaxPermalinkChars bounds the encoded form before anything is decoded:
// the largest script compresses to far less.
const MaxPermalinkChars = 96 << 10

// PermalinkError says why a permalink could not be read, as a catalog
// key and its arguments, so the page can say it in the reader's language.
type PermalinkError struct {
	Key  string
	Args []any
}

func (e *PermalinkError) Error() string { return fmt.Sprintf("permalink: %s %v", e.Key, e.Args) }

// DecodePermalink unpacks a permalink into script text. It never inflates
// more than sim.MaxScriptBytes (plus one byte, to tell "too long"), so a
// small link that inflates to gigabytes costs nothing.
func DecodePermalink(s string) (string, error) {
	if len(s) > MaxPermalinkChars {
		return "", &PermalinkError{"pl.long", []any{len(s), MaxPermalinkChars}}
	}
	body, ok := strings.CutPrefix(s, sim.PermalinkVersion)
	if !ok || body == "" {
		return "", &PermalinkError{"pl.version", []any{sim.PermalinkVersion}}
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", &PermalinkError{Key: "pl.base64"}
	}
	zr := flate.NewReader(bytes.NewReader(raw))
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, sim.MaxScriptBytes+1))
	if err != nil {
		return "", &PermalinkError{Key: "pl.inflate"}
	}
	if len(text) > sim.MaxScriptBytes {
		return "", &PermalinkError{"pl.big", []any{sim.MaxScriptBytes}}
	}
	return string(text), nil
}

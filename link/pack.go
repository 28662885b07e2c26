package link

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"io"
	"strings"
)

// A packed text (s=, code=) carries a whole script or handler file in a
// URL: a version letter, then the text compressed with raw DEFLATE and
// written in unpadded base64url, so it survives any URL, chat or e-mail
// unescaped. The version letter lets a later format coexist with links
// already shared.
const Version = "1"

// MaxPacked bounds a packed text before anything is decoded: the largest
// text compresses to far less.
const MaxPacked = 96 << 10

// MaxText is the most a packed text unpacks to: the engine's limit on a
// script (script.MaxScriptBytes, which a test keeps equal).
const MaxText = 64 << 10

// Pack packs a text (a script's canonical text, a handler file).
func Pack(text string) string {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression) // the level is valid, so no error
	zw.Write([]byte(text))
	zw.Close()
	return Version + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// Unpack unpacks a packed text; what it cannot read is an *Error (keys
// pl.*) with no Param. It never inflates more than MaxText (plus one
// byte, to tell "too long"), so a small link that inflates to gigabytes
// costs nothing.
func Unpack(s string) (string, error) {
	if len(s) > MaxPacked {
		return "", &Error{Key: "pl.long", Args: []any{len(s), MaxPacked}}
	}
	body, ok := strings.CutPrefix(s, Version)
	if !ok || body == "" {
		return "", &Error{Key: "pl.version", Args: []any{Version}}
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", &Error{Key: "pl.base64"}
	}
	zr := flate.NewReader(bytes.NewReader(raw))
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, MaxText+1))
	if err != nil {
		return "", &Error{Key: "pl.inflate"}
	}
	if len(text) > MaxText {
		return "", &Error{Key: "pl.big", Args: []any{MaxText}}
	}
	return string(text), nil
}

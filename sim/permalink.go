package sim

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"net/url"
)

// A permalink carries a whole script in a URL: a version letter, then the
// canonical script text compressed with raw DEFLATE and written in
// unpadded base64url, so it survives any URL, chat or e-mail unescaped.
// The version letter lets a later format coexist with links already
// shared. The web decodes it (labview.DecodePermalink).
const PermalinkVersion = "1"

// EncodePermalink packs a script's canonical text.
func EncodePermalink(canonical string) string {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression) // the level is valid, so no error
	zw.Write([]byte(canonical))
	zw.Close()
	return PermalinkVersion + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// LabURL is the lab's address that replays a script on a handler.
func LabURL(script, handler string) string {
	return "/lab?s=" + EncodePermalink(script) + "&handlers=" + url.QueryEscape(handler)
}

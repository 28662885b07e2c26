package page

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
)

// Assets serves static/ under /static/. Every URL the pages write carries
// the file's content hash (?v=…), and a request that names the current hash
// may be cached for a year: a new build changes the hash, so nobody keeps
// a stale file. Any other request gets an ETag and must revalidate.
//
// Text files are compressed once, with gzip's best level, the first time
// one is asked for (Compressed or Serve), not at start: compressing htmx
// and the stylesheets for every reader would cost more than everything
// else a page needs, and compressing every file at start took about a
// sixth of the server's start (the editor's CodeMirror only a page with
// an editor asks for).
type Assets struct {
	files fs.FS
	dev   bool               // read and hash on every request
	sums  map[string]string  // file -> short content hash (not in dev)
	gz    map[string]*zipped // compressible file -> its gzip form (not in dev)
}

// zipped is a file's gzip form, made once: nil when it is no smaller.
type zipped struct {
	once sync.Once
	b    []byte
}

func NewAssets(files fs.FS, dev bool) (*Assets, error) {
	a := &Assets{files: files, dev: dev, sums: map[string]string{}, gz: map[string]*zipped{}}
	if dev {
		return a, nil
	}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".go") {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		a.sums[name] = ContentHash(b)
		if compressible(name) {
			a.gz[name] = &zipped{}
		}
		return nil
	})
	return a, err
}

// gzipped is the gzip form of a file, made on first use; nil for a file
// not compressed (not text, no smaller, or in dev).
func (a *Assets) gzipped(name string) []byte {
	z := a.gz[name]
	if z == nil {
		return nil
	}
	z.once.Do(func() {
		b, err := fs.ReadFile(a.files, name)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
		zw.Write(b)
		if zw.Close() == nil && buf.Len() < len(b) {
			z.b = buf.Bytes()
		}
	})
	return z.b
}

// compressible reports the files worth compressing: text of any kind.
func compressible(name string) bool {
	switch path.Ext(name) {
	case ".css", ".js", ".svg", ".json", ".txt", ".html", ".map":
		return true
	}
	return false
}

func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// Compressed reports whether a file is kept gzip-compressed, to be sent
// as it is to readers who accept it.
func (a *Assets) Compressed(name string) bool { return a.gzipped(name) != nil }

// URL is the address of a static file with its content hash.
func (a *Assets) URL(name string) string {
	sum, ok := a.sums[name]
	if a.dev {
		b, err := fs.ReadFile(a.files, name)
		ok, sum = err == nil, ContentHash(b)
	}
	if !ok {
		return "/static/" + name
	}
	return "/static/" + name + "?v=" + sum
}

func (a *Assets) Serve(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimPrefix(path.Clean("/"+chi.URLParam(r, "*")), "/")
	if name == "" || strings.HasSuffix(name, ".go") || !fs.ValidPath(name) {
		return NotFound(r.URL.Path)
	}
	b, err := fs.ReadFile(a.files, name)
	if err != nil {
		return NotFound(r.URL.Path)
	}
	sum, ok := a.sums[name]
	if !ok {
		sum = ContentHash(b)
	}
	h := w.Header()
	h.Set("ETag", `"`+sum+`"`)
	if !a.dev && r.URL.Query().Get("v") == sum {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	if gz := a.gzipped(name); gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsEncoding(r.Header.Values("Accept-Encoding"), "gzip") {
			// The compressed file is a representation of its own: its own
			// validator, and ranges count its bytes.
			h.Set("ETag", `"`+sum+`-gz"`)
			h.Set("Content-Encoding", "gzip")
			b = gz
		}
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	return nil
}

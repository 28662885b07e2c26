package checkpage

import (
	"net/http"
	"net/url"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/web/page"
)

// engineView says which engine a page's search ran on, on a server
// started with a real one (lab serve --postgres --redis), and links the
// same page on the other engine; empty on a server with none, whose
// pages stay as they were.
type engineView struct {
	Engine     string // the engine searched, in words
	OtherURL   string // the same page on the other engine
	OtherLabel string
}

// real reads engine= (embedded, the default, or real): real asks for
// the server's PostgreSQL and Redis, a 404 on a server without them, as
// the lab's pages answer it.
func (c *Check) real(r *http.Request) (bool, error) {
	switch e := r.URL.Query().Get("engine"); e {
	case "", link.EngineEmbedded:
		return false, nil
	case link.EngineReal:
		if c.lab.Engine == nil {
			return false, &page.Error{Status: http.StatusNotFound, Key: "err.noengine"}
		}
		return true, nil
	default:
		return false, page.BadRequest(link.KeyEngine, page.InputExcerpt(e))
	}
}

// engineOf is a page's engine line: path is the page's own address, to
// link it on the other engine.
func (c *Check) engineOf(t page.Text, path string, real bool) engineView {
	if c.lab.Engine == nil {
		return engineView{}
	}
	if real {
		return engineView{Engine: t.S("chk.eng.real"), OtherURL: path, OtherLabel: t.S("chk.eng.toembedded")}
	}
	return engineView{Engine: t.S("chk.eng.embedded"), OtherURL: withEngine(path, true), OtherLabel: t.S("chk.eng.toreal")}
}

// withEngine adds engine=real to a checker's address on the real engine.
func withEngine(path string, real bool) string {
	if !real {
		return path
	}
	return path + "?" + url.Values{"engine": {link.EngineReal}}.Encode()
}

// labEngine is the engine= of a story's address in the lab: the lab
// replays it on the engine the search found it on.
func labEngine(real bool) string {
	if real {
		return link.EngineReal
	}
	return ""
}

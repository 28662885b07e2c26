package page

import (
	"net/http"
	"net/url"
)

// View is the frame every page shares.
type View struct {
	T           Text
	Title       string
	CSS         string
	TimelineCSS string
	Styles      []string // a section's own stylesheets (s.assets.URL of each), linked after the site's
	Scripts     []string // a section's own scripts, loaded with defer after htmx, in this order
	Nav         []SectionLink
	JS          string
	HTMX        string
	Langs       []LangLink
}

type LangLink struct {
	Code, Label, URL string
	Current          bool
}

func (s *Shell) PageFor(t Text, r *http.Request, title string) View {
	return WithLangs(View{
		T:           t,
		Title:       title,
		CSS:         s.Assets.URL("lab.css"),
		TimelineCSS: s.Assets.URL("timeline.css"),
		JS:          s.Assets.URL("lab.js"),
		HTMX:        s.Assets.URL("vendor/htmx-4.0.1.min.js"),
		Nav:         SiteNav(t, r),
	}, r)
}

// WithLangs adds the language switch: the same address with ?lang=.
func WithLangs(p View, r *http.Request) View {
	u := "/lab"
	q := url.Values{}
	if r.Method == http.MethodGet {
		u, q = r.URL.Path, r.URL.Query()
	}
	for _, l := range []struct{ code, label string }{{"en", "English"}, {"ru", "Русский"}} {
		q.Set("lang", l.code)
		p.Langs = append(p.Langs, LangLink{Code: l.code, Label: l.label, URL: u + "?" + q.Encode(), Current: p.T.Lang() == l.code})
	}
	return p
}

type ErrorView struct {
	Status  int
	Title   string
	Message string
	Script  string // a script that did not parse, offered back for editing
	Back    string
	// A handler file that failed, offered back for editing (Error.Code).
	Code, CodeName, CodeState string
	CodeLine                  int
	EditorSrc                 string // the code editor's script (EditorScript), with its hash
}

// EditorScript is the vendored code editor (CodeMirror 6 with Go, bundled
// by scripts/vendor.sh); lab.js loads it when an editor opens.
const EditorScript = "vendor/codemirror-6.0.2.min.js"

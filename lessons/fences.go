package lessons

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// fenceLine is one line of a fence's content and its line in the file.
type fenceLine struct {
	text string
	line int
}

// nonBlank drops blank lines and # comments.
func nonBlank(lines []fenceLine) []fenceLine {
	var out []fenceLine
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, fenceLine{t, l.line})
	}
	return out
}

// sourceRef is what a source fence names: FILE DECL, and the preset of
// its info string's editor=PRESET ("" for none).
type sourceRef struct {
	file, decl string
	line       int
	editor     string
}

// parseSourceFence reads the one line "FILE DECL" of a source fence.
func parseSourceFence(lines []fenceLine, fence int, e *errList) (sourceRef, bool) {
	ls := nonBlank(lines)
	if len(ls) != 1 {
		e.add(fence, "a source fence holds one line, FILE DECL (for example: unique.go Unique); found %d", len(ls))
		return sourceRef{}, false
	}
	f := strings.Fields(ls[0].text)
	if len(f) != 2 {
		e.add(ls[0].line, "source fence: want FILE DECL (for example: unique.go Unique), got %q", ls[0].text)
		return sourceRef{}, false
	}
	return sourceRef{file: f[0], decl: f[1], line: ls[0].line}, true
}

// parseClaimFence reads a claim fence: one "preset: NAME" line, one
// "HANDLER: VERDICT" line per handler, and optionally "engine: real" for a
// claim about the handlers on PostgreSQL and Redis and "broker: NAME" for
// one that holds on a named broker (a profile of script.BrokerProfiles). NAME may be an API
// preset (a script of HTTP requests); its handlers are then the API
// handlers, and wrong-status is a verdict it may state.
func (b *builder) parseClaimFence(lines []fenceLine, fence int, e *errList) (Claim, bool) {
	c := Claim{Line: fence}
	ok := true
	fail := func(line int, format string, args ...any) {
		e.add(line, format, args...)
		ok = false
	}
	seen := map[string]bool{}
	presetSet, presetOK := false, false
	var pending []fenceLine // handler lines, checked once the preset says which side they are on
	for _, l := range nonBlank(lines) {
		key, value, found := strings.Cut(l.text, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case !found || key == "" || value == "":
			fail(l.line, "claim: want \"preset: NAME\" or \"HANDLER: VERDICT\", got %q", l.text)
		case key == "engine":
			if value != "real" && value != "embedded" {
				fail(l.line, "claim: engine %q: valid engines: embedded, real", value)
				continue
			}
			if value == "real" {
				c.Engine = value
			}
		case key == "broker":
			if c.Broker != "" {
				fail(l.line, "claim: a claim holds on one broker; broker given twice")
				continue
			}
			var names []string
			for _, bp := range script.BrokerProfiles() {
				if bp.Name != "lab" {
					names = append(names, bp.Name)
				}
			}
			if !slices.Contains(names, value) {
				fail(l.line, "claim: broker %q: valid brokers: %s", value, strings.Join(names, ", "))
				continue
			}
			c.Broker = value
		case key == "preset":
			if presetSet {
				fail(l.line, "claim: a claim is about one preset; preset given twice")
				continue
			}
			presetSet = true
			c.Preset = value
			if _, api := b.apiPresets[value]; api {
				c.API, presetOK = true, true
			} else if err := b.checkPreset(value); err != nil {
				fail(l.line, "claim: %v", err)
			} else {
				presetOK = true
			}
		default:
			pending = append(pending, l)
		}
	}
	for _, l := range pending {
		key, value, _ := strings.Cut(l.text, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if presetOK {
			if err := b.checkClaimHandler(key, c); err != nil {
				fail(l.line, "claim: %v", err)
				continue
			}
		}
		if seen[key] {
			fail(l.line, "claim: handler %q given twice", key)
			continue
		}
		seen[key] = true
		v := sim.Verdict(value)
		if !slices.Contains(verdicts(c.API), v) {
			fail(l.line, "claim: unknown verdict %q for %s; valid verdicts: %s", value, key, joinVerdicts(c.API))
			continue
		}
		c.Verdicts = append(c.Verdicts, HandlerVerdict{Handler: key, Verdict: v})
	}
	if !presetSet {
		fail(fence, "claim: no \"preset: NAME\" line")
	}
	if len(c.Verdicts) == 0 && ok {
		fail(fence, "claim: no \"HANDLER: VERDICT\" line")
	}
	return c, ok
}

// checkClaimHandler checks a claim's handler against its preset's side:
// message handlers for a broker preset, API handlers for an API one.
func (b *builder) checkClaimHandler(name string, c Claim) error {
	switch {
	case !c.API:
		if slices.Contains(b.apiHandlers, name) {
			return fmt.Errorf("handler %q serves HTTP requests, and %s is a broker preset; valid handlers: %s", name, c.Preset, strings.Join(b.handlers, ", "))
		}
		return b.checkHandler(name)
	case slices.Contains(b.apiHandlers, name):
		return nil
	case slices.Contains(b.handlers, name):
		return fmt.Errorf("handler %q handles messages, and %s is an API preset (a script of HTTP requests); valid API handlers: %s", name, c.Preset, strings.Join(b.apiHandlers, ", "))
	default:
		return fmt.Errorf("unknown API handler %q; valid API handlers: %s", name, strings.Join(b.apiHandlers, ", "))
	}
}

func joinVerdicts(api bool) string {
	var s []string
	for _, v := range verdicts(api) {
		s = append(s, string(v))
	}
	return strings.Join(s, ", ")
}

// parseLabLink reads the target of a [text](lab:PRESET?handlers=a,b) link.
func (b *builder) parseLabLink(dest string, line int, e *errList) (LabLink, bool) {
	target := strings.TrimPrefix(dest, "lab:")
	preset, query, _ := strings.Cut(target, "?")
	link := LabLink{Preset: preset, Line: line}
	ok := true
	if err := b.checkPreset(preset); err != nil {
		e.add(line, "lab link %q: %v", dest, err)
		ok = false
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		e.add(line, "lab link %q: %v", dest, err)
		return link, false
	}
	for k := range q {
		if k != "handlers" {
			e.add(line, "lab link %q: unknown parameter %q; a lab link is lab:PRESET or lab:PRESET?handlers=a,b", dest, k)
			ok = false
		}
	}
	if hs, has := q["handlers"]; has {
		if len(hs) != 1 || hs[0] == "" {
			e.add(line, "lab link %q: handlers=a,b names the handlers once, separated by commas", dest)
			return link, false
		}
		for _, h := range strings.Split(hs[0], ",") {
			if err := b.checkHandler(h); err != nil {
				e.add(line, "lab link %q: %v", dest, err)
				ok = false
				continue
			}
			if slices.Contains(link.Handlers, h) {
				e.add(line, "lab link %q: handler %q given twice", dest, h)
				ok = false
				continue
			}
			link.Handlers = append(link.Handlers, h)
		}
	}
	return link, ok
}

// LabURL is the playground's address for preset with those handlers chosen:
// /lab?preset=P&handlers=a,b.
func LabURL(preset string, handlers []string) string { return labLink(preset, handlers).String() }

// labLink is LabURL's address as a value.
func labLink(preset string, handlers []string) link.Lab {
	l := link.Lab{Preset: preset}
	if len(handlers) > 0 {
		l.Handlers = handlers
	}
	return l
}

// withDeclared is a link's handlers with those the preset's handlers:
// header declares added after them, so that a link that names handlers
// still shows every handler the preset's narration talks about. A link
// that names none keeps none: the lab then shows the core handlers and the
// declared ones.
func withDeclared(hs []string, sc *script.Script) []string {
	if len(hs) == 0 || sc == nil {
		return hs
	}
	out := slices.Clone(hs)
	for _, h := range sc.Handlers {
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// parsePageLink recognises a link to a lesson: /lessons/SLUG, optionally
// with #anchor, or #anchor within this lesson.
func parsePageLink(dest, self string, line int) (pageLink, bool) {
	if anchor, ok := strings.CutPrefix(dest, "#"); ok {
		return pageLink{Slug: self, Anchor: anchor, Line: line}, true
	}
	rest, ok := strings.CutPrefix(dest, "/lessons/")
	if !ok {
		return pageLink{}, false
	}
	rest, anchor, _ := strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	return pageLink{Slug: strings.TrimSuffix(rest, "/"), Anchor: anchor, Line: line}, true
}

// checkPreset checks a preset the lab's pages can open: a broker preset
// or an API one. The front matter and lab: links go through it.
func (b *builder) checkPreset(name string) error {
	if _, ok := b.presets[name]; ok {
		return nil
	}
	if _, ok := b.apiPresets[name]; ok {
		return nil
	}
	names := make([]string, 0, len(b.presets))
	for n := range b.presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Errorf("unknown preset %q; valid presets: %s", name, strings.Join(names, ", "))
}

func (b *builder) checkHandler(name string) error {
	if slices.Contains(b.handlers, name) {
		return nil
	}
	return fmt.Errorf("unknown handler %q; valid handlers: %s", name, strings.Join(b.handlers, ", "))
}

package lessons

import (
	"embed"
	"fmt"
	"strings"
)

// The chroma styles the course's code is meant to be shown in.
const (
	LightStyle = "github"
	DarkStyle  = "github-dark"
)

// CodeCSS returns the stylesheet for highlighted code (every element under
// .chroma): the light style's rules, then the dark style's inside
// @media screen and (prefers-color-scheme: dark). Print uses the light
// style. A colour or font property the light style sets and the dark one
// does not is reset in the dark block, so nothing light leaks into the
// dark theme. The
// names are chroma style names, such as LightStyle and DarkStyle.
func CodeCSS(light, dark string) (string, error) {
	lightCSS, err := styleCSS(light)
	if err != nil {
		return "", err
	}
	darkCSS, err := styleCSS(dark)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "/* chroma style %s */\n", light)
	for _, r := range lightCSS {
		fmt.Fprintf(&sb, "%s { %s }\n", r.selector, r.body)
	}
	fmt.Fprintf(&sb, "@media screen and (prefers-color-scheme: dark) {\n/* chroma style %s */\n", dark)
	darkBody := map[string]string{}
	for _, r := range darkCSS {
		darkBody[r.selector] = r.body
	}
	written := map[string]bool{}
	for _, r := range append(lightCSS, darkCSS...) {
		if written[r.selector] {
			continue
		}
		written[r.selector] = true
		body := darkBody[r.selector]
		if reset := resets(r.body, body); reset != "" {
			body = strings.TrimSpace(reset + " " + body)
		}
		fmt.Fprintf(&sb, "%s { %s }\n", r.selector, body)
	}
	sb.WriteString("}\n")
	return sb.String(), nil
}

// resets undoes, for the dark theme, each colour or font property the
// light rule sets and the dark rule does not.
func resets(lightBody, darkBody string) string {
	defaults := []struct{ prop, value string }{
		{"color", "inherit"},
		{"background-color", "transparent"},
		{"font-weight", "inherit"},
		{"font-style", "inherit"},
		{"text-decoration", "inherit"},
	}
	var out []string
	for _, d := range defaults {
		if hasProp(lightBody, d.prop) && !hasProp(darkBody, d.prop) {
			out = append(out, d.prop+": "+d.value+";")
		}
	}
	return strings.Join(out, " ")
}

func hasProp(body, prop string) bool {
	for _, decl := range strings.Split(body, ";") {
		if name, _, ok := strings.Cut(decl, ":"); ok && strings.TrimSpace(name) == prop {
			return true
		}
	}
	return false
}

type cssRule struct{ selector, body string }

// StyleDir holds chroma's CSS of each style the course uses, as chroma's
// HTML formatter writes it (classes, line numbers, no comments), one
// file per style: STYLE.css. `make highlight` writes them with chroma
// itself, which the binary does not link (code.go).
const StyleDir = "codestyle"

//go:embed codestyle/*.css
var styleFiles embed.FS

// styleCSS is chroma's CSS for one style, as rules, without the .bg rule
// (chroma's standalone-page body, which would clash with the site's own
// classes).
func styleCSS(name string) ([]cssRule, error) {
	data, err := styleFiles.ReadFile(StyleDir + "/" + name + ".css")
	if err != nil || strings.ContainsAny(name, "/.") {
		return nil, fmt.Errorf("unknown chroma style %q (the course has: %s, %s)", name, LightStyle, DarkStyle)
	}
	var rules []cssRule
	for _, line := range strings.Split(string(data), "\n") {
		sel, body, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		sel = strings.TrimSpace(sel)
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "}"))
		if sel == ".bg" {
			continue
		}
		rules = append(rules, cssRule{sel, body})
	}
	return rules, nil
}

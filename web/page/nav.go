package page

import (
	"net/http"
	"strings"
)

// SectionLink is one of the site's sections in the header.
type SectionLink struct {
	Label, URL string
	// Current is "page" on the section's own address, "true" anywhere
	// else inside it, and empty outside it (the aria-current value).
	Current string
}

// SiteNav lists the site's sections, marking the one r is in.
func SiteNav(t Text, r *http.Request) []SectionLink {
	sections := []struct {
		key, url string
		also     []string // other address prefixes that belong to it
	}{
		{"nav.lab", "/lab", nil},
		{"nav.matrix", "/matrix", nil},
		{"nav.check", "/check", nil},
		{"nav.lessons", "/lessons", nil},
		{"nav.practice", "/practice", nil},
		{"nav.challenges", "/challenges", nil},
		{"nav.present", "/present", []string{"/rooms", "/join"}},
		{"nav.tryapi", "/try-api", nil},
		{"nav.cost", "/cost", nil},
	}
	path := r.URL.Path
	links := make([]SectionLink, len(sections))
	for i, s := range sections {
		links[i] = SectionLink{Label: t.S(s.key), URL: s.url}
		switch {
		case path == s.url:
			links[i].Current = "page"
		case inSection(path, s.url):
			links[i].Current = "true"
		default:
			for _, p := range s.also {
				if inSection(path, p) {
					links[i].Current = "true"
				}
			}
		}
	}
	return links
}

// inSection reports whether path is prefix or below it.
func inSection(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

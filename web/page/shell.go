// Package page is the shell every page of the lab shares: the document
// around a page (layout.templ), the words in both languages (messages.go)
// and the choice of language (i18n.go), errors as pages (errors.go), the
// navigation, the static files, and the cache of finished pages. The
// parts of the lab (the playground, the course, practice, the classroom)
// build their pages on it; it knows none of them.
package page

import "log/slog"

// Shell is what every part's handlers use to answer: the catalogue, the
// static files, the log, and the page cache.
type Shell struct {
	Catalog Catalog
	Assets  *Assets
	Log     *slog.Logger
	cache   *pageCache // finished pages; nil when turned off (cache.go)
	flights *flights   // identical requests in progress, computed once

	// messages is Catalog compiled, once, into the x/text catalogue
	// every page's Text reads.
	messages *messages
}

// NewShell builds the shell. cacheBytes bounds the cache of finished
// pages: 0 means the default (64 MiB), a negative value turns it off.
func NewShell(c Catalog, a *Assets, log *slog.Logger, cacheBytes int64) *Shell {
	s := &Shell{Catalog: c, Assets: a, Log: log, flights: newFlights(), messages: c.compile()}
	switch {
	case cacheBytes < 0:
	case cacheBytes == 0:
		s.cache = newPageCache(defaultCacheBytes)
	default:
		s.cache = newPageCache(cacheBytes)
	}
	return s
}

// CacheStats says how many pages were computed for the cache (identical
// requests at the same time count once), and how many pages and bytes it
// holds; all zero with the cache off.
func (s *Shell) CacheStats() (computed, pages int, bytes int64) {
	if s.cache == nil {
		return 0, 0, 0
	}
	s.flights.mu.Lock()
	computed = s.flights.started
	s.flights.mu.Unlock()
	pages, bytes = s.cache.stats()
	return computed, pages, bytes
}

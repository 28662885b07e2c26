// Package static holds the files the lab's pages load: its stylesheet, its
// small script, an icon and the vendored htmx. They are embedded so the
// binary needs nothing from the network or the disk.
package static

import "embed"

// FS holds every static file, by its path under static/.
//
//go:embed *.css *.js *.svg vendor/*.js
var FS embed.FS

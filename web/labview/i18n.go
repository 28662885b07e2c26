package labview

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are the lab's words, one file per language
// (page.LoadMessages): the playground's page, its cards and the verdict
// grid, then the step controls' descriptions, then the challenges.
//
//go:embed messages/*.json
var messages embed.FS

// Catalog is the lab's words: the lab page, its cards, the verdict grid,
// the step controls' descriptions and the challenges.
func Catalog() page.Catalog { return page.MustMessages(messages) }

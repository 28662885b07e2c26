package practicepage

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are the practice pages' words, one file per
// language (page.LoadMessages).
//
//go:embed messages/*.json
var messages embed.FS

// Catalog holds the practice pages' words. The questions
// themselves come in both languages from package practice.
func Catalog() page.Catalog { return page.MustMessages(messages) }

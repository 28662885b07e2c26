package timeline

import (
	"os"
	"sync"

	"github.com/idempotency-lab/lab/web/page"
)

// The lab's message files (web/labview/messages), which hold the
// diagram's words, loaded once for the tests.
var labviewCatalog = sync.OnceValue(func() page.Catalog { return page.MustMessages(os.DirFS("..")) })

// EnglishLabels and RussianLabels are the diagram's words as the lab's
// page gives them (LabelsIn) in English and in Russian.
func EnglishLabels() Labels { return LabelsIn(page.NewText(page.EN, labviewCatalog())) }
func RussianLabels() Labels { return LabelsIn(page.NewText(page.RU, labviewCatalog())) }

package tryapi_test

// The harness these tests share with the web's others (web/webtest), under
// the names the tests use.

import (
	"context"
	"testing"

	"github.com/idempotency-lab/lab/web/webtest"
)

var (
	do             = webtest.Do
	screenshotWhen = webtest.ScreenshotWhen
	location       = webtest.Location
	textOfSel      = webtest.TextOfSel
	runAxe         = webtest.RunAxe
	axeFile        = webtest.AxeFile
)

// browser is webtest.Browser under the names these tests use.
type browser struct {
	*webtest.Browser
	base string
}

func wrapBrowser(b *webtest.Browser) *browser { return &browser{b, b.Base} }

func (b *browser) tab(fresh, javascript bool) context.Context { return b.Tab(fresh, javascript) }

func (b *browser) noConsoleErrors() { b.NoConsoleErrors() }

func newBrowser(t *testing.T) *browser { return wrapBrowser(webtest.NewBrowser(t)) }

func TestMain(m *testing.M) { webtest.Main(m) }

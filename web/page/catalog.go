package page

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/sim"
)

// shellMessages are the words of the shell itself (messages/LANG.json):
// the site's name, its sections and descriptions, the header's switches,
// the error pages' headings and generic messages, and how verdicts read
// (verdicts.go). Each part of the lab keeps its own words next to its code,
// in message files of its own, and hands them to NewCatalog.
//
//go:embed messages/*.json
var shellMessages embed.FS

// shellCatalog is the shell's words: its message files, and each verdict's
// badge, which is sim's word for it in capitals.
func shellCatalog() (Catalog, error) {
	c, err := LoadMessages(shellMessages)
	if err != nil {
		return nil, fmt.Errorf("the shell's words: %w", err)
	}
	for _, v := range sim.Verdicts() {
		c["v."+string(v)] = [2]string{strings.ToUpper(v.Word("en")), strings.ToUpper(v.Word("ru"))}
	}
	return c, nil
}

// NewCatalog is the shell's words and every part's, in one table (Join).
// The server builds it once, at start, and a key two of them define stops
// the start: one key, one wording.
func NewCatalog(parts ...Catalog) (Catalog, error) {
	shell, err := shellCatalog()
	if err != nil {
		return nil, err
	}
	return Join(append([]Catalog{shell}, parts...)...)
}

// MustCatalog is NewCatalog for a part's tests, which give it their own
// catalogue: a repeated key panics.
func MustCatalog(parts ...Catalog) Catalog {
	c, err := NewCatalog(parts...)
	if err != nil {
		panic(err)
	}
	return c
}

// Join is the catalogues in one table. A key that more than one of them
// defines is an error naming every such key: which wording a page shows
// must never depend on the order the parts are given in.
func Join(parts ...Catalog) (Catalog, error) {
	c := Catalog{}
	var repeated []string
	for _, p := range parts {
		for k, v := range p {
			if _, ok := c[k]; ok {
				repeated = append(repeated, k)
			}
			c[k] = v
		}
	}
	if len(repeated) > 0 {
		slices.Sort(repeated)
		return nil, fmt.Errorf("the catalogue defines %s more than once", strings.Join(slices.Compact(repeated), ", "))
	}
	return c, nil
}

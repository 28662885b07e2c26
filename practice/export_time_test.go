package practice

import (
	"strings"
	"testing"
)

// TestImportBadTimeIsExplained: a hand-edited time gets a message about
// the expected format, not Go's layout string.
func TestImportBadTimeIsExplained(t *testing.T) {
	bank, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	data := `{"format":"` + ExportFormat + `","version":1,"profile":"` + NewProfileID() +
		`","attempts":[{"id":"` + NewProfileID() + `","question":"x","score":1,"at":"yesterday"}]}`
	_, err = ParseExport([]byte(data), bank)
	if err == nil {
		t.Fatal("a bad time was accepted")
	}
	if msg := err.Error(); strings.Contains(msg, "2006-01-02") || !strings.Contains(msg, `"yesterday"`) {
		t.Errorf("message %q should name the bad value and the expected format, not Go's layout", msg)
	}
}

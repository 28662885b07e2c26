package timeline

import (
	"math"
	"testing"
)

// TestScreenSize checks the svg's own size: body text at 13 px, so that at
// desktop widths a label reads at 12–14 px, not the 24 px of a diagram
// stretched to the width of its box.
func TestScreenSize(t *testing.T) {
	for _, d := range []Diagram{{Width: 1364, Height: 1076}, {Width: 848, Height: 400}, {Width: 2006, Height: 1874}} {
		px := float64(fontSize) * float64(d.ScreenWidth()) / float64(d.Width)
		if px < 12 || px > 14 {
			t.Errorf("%d units wide: body text at %.1f px", d.Width, px)
		}
		if r, want := float64(d.ScreenHeight())/float64(d.ScreenWidth()), float64(d.Height)/float64(d.Width); math.Abs(r-want) > 0.01 {
			t.Errorf("%d×%d: proportions %.3f, want %.3f", d.Width, d.Height, r, want)
		}
	}
}

package course

import "testing"

func TestThemedCodeCSS(t *testing.T) {
	in := ".chroma .k { color: red }\n@media screen and (prefers-color-scheme: dark) {\n/* dark */\n.chroma .k, .chroma .kd { color: pink }\n}\n"
	want := ".chroma .k { color: red }\n" +
		"@media screen and (prefers-color-scheme: dark) {\n/* dark */\n" +
		`:root:not([data-theme="light"]) .chroma .k, :root:not([data-theme="light"]) .chroma .kd { color: pink }` + "\n}\n" +
		"@media screen {\n/* the page's theme toggle set to dark */\n/* dark */\n" +
		`:root[data-theme="dark"] .chroma .k, :root[data-theme="dark"] .chroma .kd { color: pink }` + "\n}\n\n"
	if got := themedCodeCSS(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := themedCodeCSS(".a { b: c }\n"); got != ".a { b: c }\n" {
		t.Errorf("CSS without a dark block changed: %q", got)
	}
}

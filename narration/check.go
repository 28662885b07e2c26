package narration

import (
	"fmt"
	"strings"
)

// The checker's words (package check): how its search modelled the
// broker's redelivery after a crash or a timeout (check.Report.Redelivery).
// The arguments of check.redelivery.after and .also-after are the
// visibility timeouts tried, each written as a script writes a duration.
func init() {
	register(map[string]message{
		"check.redelivery.at-once": msg("redelivery at once: after a crash or a timeout a message is handed out again with no time passing (no visibility-timeout: header)",
			"повторная доставка сразу: после падения или таймаута сообщение выдаётся снова без паузы (заголовка visibility-timeout: нет)"),
		"check.redelivery.also-after": timeouts("redelivery at once, and after a visibility timeout of %s: the clock moves on until the message's lease runs out",
			"повторная доставка сразу, а также после visibility timeout %s: часы идут вперёд, пока не истечёт аренда сообщения"),
		"check.redelivery.after": timeouts("redelivery after a visibility timeout of %s: the clock moves on until the message's lease runs out (an explicit nack at once)",
			"повторная доставка после visibility timeout %s: часы идут вперёд, пока не истечёт аренда сообщения (явный nack — сразу)"),
	})
}

// timeouts is a message whose one verb is its arguments as a list: "4m",
// "4m or 6m", "4m, 6m or 8m" (in Russian with или).
func timeouts(en, ru string) message {
	return fn(func(lang string, a []string) string {
		list := strings.Join(a, "")
		if len(a) >= 2 {
			list = strings.Join(a[:len(a)-1], ", ") + pick(lang, " or ", " или ") + a[len(a)-1]
		}
		return fmt.Sprintf(pick(lang, en, ru), list)
	})
}

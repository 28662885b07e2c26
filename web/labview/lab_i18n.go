package labview

import "github.com/idempotency-lab/lab/web/page"

// labCatalog holds the lab page's step-control descriptions (each
// control's tooltip and accessible description) and the script panel's
// reading view.
func labCatalog() page.Catalog {
	return page.Catalog{
		"tip.do-publish":             {"The producer sends a new top-up intent to the broker.", "Продюсер отправляет брокеру новое намерение пополнить счёт."},
		"tip.do-retry":               {"The producer sends the same intent again: new transport id, same key.", "Продюсер отправляет то же намерение ещё раз: новый транспортный id, тот же ключ."},
		"tip.do-ship":                {"The warehouse moves a paid order to SHIPPED.", "Склад переводит оплаченный заказ в SHIPPED."},
		"tip.do-change-payload":      {"The same key is sent again with a different amount.", "Тот же ключ отправляется снова с другой суммой."},
		"tip.do-deliver":             {"A worker takes the oldest ready message and handles it to the end.", "Воркер берёт самое старое готовое сообщение и обрабатывает его до конца."},
		"tip.do-crash-before-effect": {"A worker takes a message and dies before the handler's effect; the message stays in flight.", "Воркер берёт сообщение и падает до эффекта обработчика; сообщение остаётся в обработке."},
		"tip.do-crash-after-effect":  {"A worker takes a message and dies right after the effect, before it is recorded as done.", "Воркер берёт сообщение и падает сразу после эффекта, не успев отметить его выполненным."},
		"eng.label":                  {"Engine", "Движок"},
		"eng.embedded":               {"SQLite + miniredis (embedded)", "SQLite + miniredis (встроенный)"},
		"eng.real":                   {"PostgreSQL + Redis (real servers)", "PostgreSQL + Redis (настоящие серверы)"},
		"err.noengine":               {"This lab has no real engine: start it with --postgres URL and --redis URL to run the handlers on PostgreSQL and Redis.", "У этой лаборатории нет настоящего движка: запустите её с --postgres URL и --redis URL, чтобы обработчики работали на PostgreSQL и Redis."},
		"err.apiscript":              {"This script sends API requests (request, request-concurrent): the lab's pages do not show the API side yet. Run it with lab run FILE, which shows every answer and verdict.", "Этот сценарий отправляет запросы к API (request, request-concurrent): страницы лаборатории пока не показывают сторону API. Запустите его через lab run ФАЙЛ: там видны все ответы и вердикты."},
		"err.engine":                 {"%s is not an engine: use embedded or real.", "%s — не движок: допустимо embedded или real."},
		"tip.do-crash-call":          {"A worker takes a message and dies just before the handler's call with this number (the timeline numbers each SQL statement, Redis command and gateway call: #1, #2…); a call it never makes means no crash.", "Воркер берёт сообщение и падает перед обращением обработчика с этим номером (на диаграмме пронумерованы все SQL-запросы, команды Redis и вызовы шлюза: #1, #2…); если до такого обращения дело не дойдёт, падения не будет."},
		"tip.do-crash-after-call":    {"A worker takes a message and dies right after the handler's call with this number: a COMMIT that went through stays done.", "Воркер берёт сообщение и падает сразу после обращения обработчика с этим номером: прошедший COMMIT остаётся в силе."},
		"tip.do-crash-before-ack":    {"A worker finishes the handler but dies before its ack reaches the broker.", "Воркер завершает обработку, но падает до того, как ack дойдёт до брокера."},
		"tip.do-deliver-concurrent":  {"Two workers take the two oldest messages; both pass their checks before either writes.", "Два воркера берут два самых старых сообщения; оба проходят проверки раньше, чем кто-то пишет."},
		"tip.do-deliver-same":        {"A slow worker's visibility timeout runs out and a second worker gets the same message.", "У медленного воркера истекает таймаут видимости, и то же сообщение получает второй воркер."},
		"tip.do-drain":               {"Workers deliver until nothing is ready.", "Воркеры доставляют, пока очередь не опустеет."},
		"tip.do-redeliver":           {"In-flight messages go back to the queue (or to the DLQ after max-deliveries).", "Сообщения в обработке возвращаются в очередь (или в DLQ после max-deliveries)."},
		"tip.do-dlq-replay":          {"Dead letters are published again with new transport ids.", "Сообщения из DLQ публикуются снова с новыми транспортными id."},
		"tip.do-advance":             {"The simulated clock moves on: Redis TTLs expire, the inbox reaper runs.", "Модельные часы идут вперёд: истекают TTL в Redis, чистится inbox."},
		"tip.do-gateway-down":        {"The payment gateway refuses every charge: nothing is charged.", "Платёжный шлюз отклоняет каждое списание: ничего не списано."},
		"tip.do-gateway-up":          {"The payment gateway works normally again.", "Платёжный шлюз снова работает нормально."},
		"tip.do-gateway-timeout":     {"Every charge takes effect, but its answer is lost: the handler sees a timeout.", "Каждое списание проходит, но ответ теряется: обработчик видит таймаут."},
		"tip.do-gateway-dedup-on":    {"The provider deduplicates charges on the reference they carry.", "Провайдер дедуплицирует списания по переданной ссылке."},
		"tip.do-gateway-dedup-off":   {"The provider charges every request, repeated references included.", "Провайдер списывает по каждому запросу, даже с повторной ссылкой."},
		"tip.do-undo":                {"Removes the script's last step.", "Удаляет последний шаг сценария."},
		"strip.title":                {"If settled now", "Если завершить сейчас"},
		"script.view":                {"The script in English", "Сценарий на русском"},
		"script.edit":                {"Edit the script (both languages)", "Править сценарий (оба языка)"},

		// Play: the steps one after another, the message moving on each card.
		"play.play":      {"Play", "Пуск"},
		"play.pause":     {"Pause", "Пауза"},
		"play.tip.play":  {"Play the steps one after another (Space)", "Проиграть шаги один за другим (Пробел)"},
		"play.tip.pause": {"Pause on this step (Space)", "Остановиться на этом шаге (Пробел)"},
		"play.speed":     {"Speed", "Скорость"},
		"play.group":     {"Play the steps", "Проигрывание шагов"},
		"play.keys":      {"Keys: ← → move between steps, Space plays or pauses", "Клавиши: ← → переход между шагами, Пробел — пуск или пауза"},
		"lane.path":      {"The message %s at this step: %s.", "Сообщение %s на этом шаге: %s."},
		"lane.crash":     {"The worker dies on the way.", "По дороге воркер падает."},
	}
}

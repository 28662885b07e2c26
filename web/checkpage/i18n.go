package checkpage

import "github.com/idempotency-lab/lab/web/page"

// Catalog is the checker's words.
func Catalog() page.Catalog {
	return page.Catalog{
		"chk.title":          {"Checker", "Проверка"},
		"chk.lead":           {"For every handler, the engine runs every script of up to %d steps built from the script language (publishes, repeats, changed payloads, a second tenant, a refund, an outbox and its relay, every delivery with every crash point, a message out of order, a replayed batch, redeliveries, two workers, DLQ replays, the gateway's modes), then random ones, and shrinks the first failure of each kind (each verdict and cause) until no step can go. The shortest story comes first.", "Для каждого обработчика движок прогоняет все сценарии длиной до %d шагов из языка сценариев (публикации, повторы, изменённое содержимое, второй тенант, возврат, outbox и его relay, каждая доставка с каждой точкой падения, сообщение не по порядку, повтор пачки, повторные доставки, два воркера, переотправка из DLQ, режимы шлюза), затем случайные, и сокращает первый сбой каждого вида (вердикт и причина), пока ни один шаг нельзя убрать. Самая короткая история — первой."},
		"chk.handler":        {"Handler", "Обработчик"},
		"chk.shortest":       {"Shortest failure", "Самый короткий сбой"},
		"chk.steps":          {"Steps", "Шагов"},
		"chk.others":         {"Other failures", "Другие сбои"},
		"chk.other":          {"%s in %d", "%s за %d"},
		"chk.count":          {"%d distinct failures", "различных сбоев: %d"},
		"chk.cause":          {"Cause:", "Причина:"},
		"chk.causes":         {"One story for each cause: the kinds of step that make the difference (a crash point, a race, a retry, time moving, a second tenant, the gateway's modes). The shortest story of each verdict comes first.", "По одной истории на каждую причину: виды шагов, от которых зависит исход (точка падения, гонка, повтор, ход времени, второй тенант, режимы шлюза). Самая короткая история каждого вердикта — первой."},
		"chk.omitted":        {"%d more distinct failures were found and are not listed: the page keeps %d stories.", "Найдено ещё различных сбоев: %d; они не показаны: на странице не больше %d историй."},
		"chk.none":           {"none found up to depth %d and %d random scripts (%d scripts run)", "не найдено до глубины %d и за %d случайных сценариев (прогнано %d)"},
		"chk.partial":        {"The time budget ran out before the search finished.", "Время на поиск кончилось раньше, чем он завершился."},
		"chk.stories":        {"Minimal stories", "Минимальные истории"},
		"chk.story":          {"%s, steps in the story: %d; settled %s, expected %s", "%s, шагов в истории: %d; итог %s, ожидалось %s"},
		"chk.open":           {"Open in the lab", "Открыть в лаборатории"},
		"chk.back":           {"All handlers", "Все обработчики"},
		"chk.minimal":        {"Removing any step, or making any simpler, makes this failure go away.", "Если убрать любой шаг или упростить его, этот сбой исчезает."},
		"chk.streaming":      {"Searching each handler in turn: its row appears when its search ends (the results are kept, so the next visit is instant).", "Обработчики проверяются по очереди: строка появляется, когда поиск для неё закончен (результаты сохраняются, поэтому следующее открытие мгновенно)."},
		"chk.interrupted":    {"The search stopped here: the server is busy or the page was left. Reload it to go on; the rows above are kept.", "Поиск остановился здесь: сервер занят или страницу закрыли. Обновите её, чтобы продолжить; строки выше сохранены."},
		"chk.provider.plain": {"The payment provider in this story does not deduplicate: a charge sent again is a new payment (the gateway's default; a provider that deduplicates by reference is gateway dedup on).", "Платёжный провайдер в этой истории не дедуплицирует: повторно отправленное списание — новый платёж (так шлюз ведёт себя по умолчанию; провайдер, который дедуплицирует по идентификатору списания, — это gateway dedup on)."},
		"chk.provider.dedup": {"The payment provider in this story deduplicates by reference (gateway dedup on): a charge sent again with the same reference is answered without charging.", "Платёжный провайдер в этой истории дедуплицирует по идентификатору списания (gateway dedup on): на повторное списание с тем же идентификатором он отвечает, не списывая."},
		"chk.err.nocode":     {"This page checks a handler file: the address needs code=, as the editor's Find a failure makes it.", "Эта страница проверяет файл обработчика: в адресе нужен code=, как его делает кнопка «Найти сбой» в редакторе."},
		"chk.err.handler":    {"There is no handler %q. Valid handlers: %s.", "Обработчика %q нет. Есть такие: %s."},
		"desc/check":         {"Checker: the shortest failure of every handler, found by running every schedule up to a depth.", "Проверка: самый короткий сбой каждого обработчика, найденный перебором всех расписаний до заданной глубины."},

		// The engine a search ran on, on a server with a real one.
		"chk.eng.embedded":   {"Searched on the embedded engine: SQLite and miniredis.", "Поиск на встроенном движке: SQLite и miniredis."},
		"chk.eng.real":       {"Searched on the real engine: PostgreSQL and Redis, where some handlers fail that pass on SQLite (PostgreSQL aborts a transaction at its first error).", "Поиск на настоящем движке: PostgreSQL и Redis, где падают некоторые обработчики, проходящие на SQLite (PostgreSQL прерывает транзакцию при первой же ошибке)."},
		"chk.eng.toreal":     {"Search on PostgreSQL and Redis", "Искать на PostgreSQL и Redis"},
		"chk.eng.toembedded": {"Search on SQLite and miniredis", "Искать на SQLite и miniredis"},
		"chk.eng.code":       {"Your file was searched on the embedded engine only (SQLite and miniredis): a visitor's file never reaches the server's PostgreSQL and Redis. To search it there, run lab check --code FILE --engine real on your own machine.", "Ваш файл проверен только на встроенном движке (SQLite и miniredis): файл посетителя никогда не получает PostgreSQL и Redis сервера. Чтобы проверить его там, запустите у себя lab check --code FILE --engine real."},
	}
}

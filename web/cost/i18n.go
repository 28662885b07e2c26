package cost

import "github.com/idempotency-lab/lab/web/page"

// Catalog is the cost page's words.
func Catalog() page.Catalog {
	return page.Catalog{
		"cost.title":     {"What idempotency costs", "Сколько стоит идемпотентность"},
		"cost.lead":      {"Each handler gets the same stream of top-ups, some of them sent twice as a producer's retry, and the lab counts what it did: SQL statements, Redis commands and transactions per message, the rows and bytes it keeps, and how long a message took. Counters are exact; timings are this machine's, now, so compare them as ratios within one run.", "Каждый обработчик получает один и тот же поток пополнений, часть из них отправлена дважды как повтор продюсера, и лаборатория считает, что он сделал: SQL-запросы, команды Redis и транзакции на сообщение, строки и байты, которые он хранит, и сколько заняло сообщение. Счётчики точны; время — этой машины и этого момента, поэтому сравнивайте его как отношения внутри одного прогона."},
		"cost.form":      {"Run it here", "Запустить здесь"},
		"cost.handlers":  {"Handlers", "Обработчики"},
		"cost.core":      {"the five core patterns", "пять основных паттернов"},
		"cost.all":       {"all message handlers", "все обработчики сообщений"},
		"cost.messages":  {"Messages per handler (1 to %d)", "Сообщений на обработчик (от 1 до %d)"},
		"cost.dup":       {"Sent twice, % (0 to 100)", "Отправлено дважды, % (от 0 до 100)"},
		"cost.keys":      {"Rows for the keys experiment (0 to %d; 0 skips it)", "Строк для опыта с ключами (от 0 до %d; 0 — пропустить)"},
		"cost.retention": {"Inbox retention over three days", "Хранение inbox за три дня"},
		"cost.run":       {"Run the bench", "Запустить замер"},
		"cost.off":       {"This server does not run benches (lab serve --bench=false): the reference run below is what it shows.", "Этот сервер не запускает замеры (lab serve --bench=false): ниже показан эталонный прогон."},
		"cost.onetime":   {"One bench runs at a time; leaving the page stops it.", "Замер идёт только один за раз; если уйти со страницы, он остановится."},
		"cost.progress":  {"Measuring: %d of %d handlers", "Замер: %d из %d обработчиков"},
		"cost.results":   {"This run", "Этот прогон"},
		"cost.ran":       {"%d messages per handler, %d%% sent twice (%d copies), on %s/%s with %d CPUs, %s.", "Сообщений на обработчик: %d, дважды отправлено %d%% (%d копий), на %s/%s, CPU: %d, %s."},
		"cost.reference": {"The reference run", "Эталонный прогон"},
		"cost.refnote":   {"Committed with the lab, made on %s with: %s.", "Сохранён вместе с лабораторией, сделан %s командой: %s."},
		"cost.embedded":  {"Embedded engine: SQLite and miniredis", "Встроенный движок: SQLite и miniredis"},
		"cost.real":      {"Real engine: PostgreSQL and Redis", "Настоящий движок: PostgreSQL и Redis"},
		"cost.table":     {"The figures", "Цифры"},
		"cost.handler":   {"Handler", "Обработчик"},
		"cost.verdict":   {"Verdict", "Вердикт"},
		"cost.persec":    {"msg/s", "сообщ./с"},
		"cost.p50":       {"p50, ms", "p50, мс"},
		"cost.p99":       {"p99, ms", "p99, мс"},
		"cost.sql":       {"SQL/msg", "SQL/сообщ."},
		"cost.redis":     {"Redis/msg", "Redis/сообщ."},
		"cost.tx":        {"tx/msg", "транз./сообщ."},
		"cost.rows":      {"rows", "строк"},
		"cost.bytes":     {"bytes/msg", "байт/сообщ."},
		"cost.keysh":     {"Keys and the B-tree", "Ключи и B-дерево"},
		"cost.keyslead":  {"The same number of rows into a UNIQUE index, keyed four ways. Random keys (UUIDv4, a hash) land anywhere in the index, time-ordered ones (UUIDv7, a sequence) at its right edge. PostgreSQL's B-tree shows it in leaf fill and size; SQLite rebalances its pages and shows it only in speed, once the index outgrows its page cache. A table that fits in memory shows little of either.", "Одинаковое число строк в UNIQUE-индекс, с ключами четырёх видов. Случайные ключи (UUIDv4, хеш) попадают в любое место индекса, упорядоченные по времени (UUIDv7, последовательность) — к его правому краю. B-дерево PostgreSQL показывает это заполненностью листьев и размером; SQLite перераспределяет страницы и показывает это только скоростью, когда индекс перерастает кеш страниц. Таблица, которая помещается в память, почти не показывает ни того, ни другого."},
		"cost.reth":      {"Retention", "Хранение"},
		"cost.retlead":   {"The inbox keeps a row per message until a job deletes old rows. A window saves storage and costs protection: a copy that comes back after its row is gone is credited again, as in %s (a DLQ replay three days later).", "Inbox хранит строку на каждое сообщение, пока задание очистки не удалит старые. Окно экономит место и отнимает защиту: копия, вернувшаяся после удаления строки, зачисляется снова, как в %s (переотправка из DLQ через три дня)."},
		"cost.err.busy":  {"Another bench is running on this server; try again in a moment.", "На этом сервере уже идёт другой замер; попробуйте чуть позже."},
		"cost.err.off":   {"This server does not run benches (lab serve --bench=false).", "Этот сервер не запускает замеры (lab serve --bench=false)."},
		"cost.err.field": {"%s: %q is not valid; %s.", "%s: %q — недопустимо; %s."},
		"desc/cost":      {"The cost lab: what each handler's idempotency costs in calls, storage and time, measured, with charts.", "Стоимость идемпотентности: сколько обращений, места и времени тратит каждый обработчик — измерено, с графиками."},
	}
}

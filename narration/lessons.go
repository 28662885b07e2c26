package narration

import "fmt"

// The lessons' own words (package lessons): the chrome a lesson's page
// draws around its text, such as a heading's anchor, a claim box, a quoted
// handler's line, a diagram's name and the captions of a plan and of a
// measured chart. A lesson's text itself lives in its Markdown files.
func init() {
	register(map[string]message{
		"lessons.anchor-title":   msg("Link to this section", "Ссылка на этот раздел"),
		"lessons.claim.scenario": msg("Scenario", "Сценарий"),
		"lessons.claim.real":     msg("on PostgreSQL + Redis", "на PostgreSQL + Redis"),
		"lessons.claim.on":       msg("on", "на"),
		"lessons.claim.try":      msg("Try it in the lab", "Попробовать в лаборатории"),
		"lessons.claim.try-api":  msg("Try the live API", "Попробовать живой API"),
		"lessons.claim.note-api": msg("The course's tests run this scenario and check these verdicts. In a terminal:",
			"Тесты курса прогоняют этот сценарий и сверяют вердикты. В терминале:"),
		"lessons.claim.note": msg("The course's tests run this scenario and check these verdicts.",
			"Тесты курса прогоняют этот сценарий и сверяют вердикты."),
		"lessons.claim.note-real": msg("The course's tests run this scenario on a real PostgreSQL and Redis and check these verdicts; the lab runs it there when its server has them (the engine switch).",
			"Тесты курса прогоняют этот сценарий на настоящих PostgreSQL и Redis и сверяют вердикты; лаборатория запускает его там, если они есть у её сервера (переключатель движка)."),
		"lessons.claim.note-nats": msg("The course's tests run this scenario on a real NATS JetStream server (nats-server, in the lab's own process) and under the lab model's NATS JetStream profile, and check these verdicts on both.",
			"Тесты курса прогоняют этот сценарий на настоящем сервере NATS JetStream (nats-server в процессе лаборатории) и в модели лаборатории с профилем NATS JetStream и сверяют вердикты в обоих."),
		"lessons.claim.note-kafka": msg("The course's tests run this scenario on franz-go's Kafka cluster in the lab's own process (kfake: Kafka's protocol and group offsets, not Apache Kafka itself) and under the lab model's Kafka profile, and check these verdicts on both.",
			"Тесты курса прогоняют этот сценарий на кластере Kafka из franz-go в процессе лаборатории (kfake: протокол Kafka и смещения групп, но не сам Apache Kafka) и в модели лаборатории с профилем Kafka и сверяют вердикты в обоих."),
		"lessons.claim.note-rabbitmq": msg("The course's tests run this scenario on a real RabbitMQ server (a quorum queue, through amqp091-go) and under the lab model's RabbitMQ profile, and check these verdicts on both; the lab runs it on RabbitMQ when its server was given one.",
			"Тесты курса прогоняют этот сценарий на настоящем сервере RabbitMQ (quorum-очередь, через amqp091-go) и в модели лаборатории с профилем RabbitMQ и сверяют вердикты в обоих; лаборатория запускает его на RabbitMQ, если её серверу его дали."),
		"lessons.claim.note-profile": msg("The course's tests run this scenario under the lab model's %[1]s profile (its redelivery, delivery limit and dedup window) and check these verdicts.",
			"Тесты курса прогоняют этот сценарий в модели лаборатории с профилем %[1]s (его повторная доставка, предел доставок и окно дедупликации) и сверяют вердикты."),
		"lessons.source.marks": msg("highlighted: where the lab can stop the worker", "подсвечено: где лаборатория может остановить воркер"),
		"lessons.editor.open":  msg("Open in the editor", "Открыть в редакторе"),
		"lessons.editor.note": msg("the lab on the scenario %s, with this handler as a file you can change and run",
			"лаборатория на сценарии %s, а этот обработчик — файлом, который можно менять и запускать"),
		"lessons.diagram": msg("Diagram", "Диаграмма"),
		"lessons.plan.caption": msg("How SQLite runs each statement %s makes for a message, in its own words (EXPLAIN QUERY PLAN), asked by the lab when it loads the course. SCAN reads every row of the table; SEARCH … USING INDEX goes down the index to the rows it needs. An INSERT of values reads no table and has no plan.",
			"Как SQLite выполняет каждый запрос, который %s делает на одно сообщение, — её собственными словами (EXPLAIN QUERY PLAN); лаборатория спрашивает её при загрузке курса. SCAN читает все строки таблицы; SEARCH … USING INDEX спускается по индексу к нужным строкам. INSERT со значениями не читает таблиц, и плана у него нет."),
		// lessons.measured.caption: the reference run's date, OS, arch,
		// CPUs, Go version, engine, and its note, which is in English
		// only: the Russian caption says it in its own words.
		"lessons.measured.caption": fn(func(lang string, a []string) string {
			if lang == "ru" {
				return fmt.Sprintf("Измерено %s на %s/%s, CPU: %s, %s; движок %s. Машина общая и шумная: времена сравнивайте как отношения внутри одного прогона; счётчики (обращения, транзакции, строки) точны и от машины не зависят. Байты считаются целыми страницами и в PostgreSQL зависят от того, когда прошёл vacuum: тогда у таблицы появляются карта свободного места (24 КБ) и карта видимости (8 КБ), а мёртвые строки остаются до его прихода.", a[0], a[1], a[2], a[3], a[4], a[5])
			}
			return fmt.Sprintf("Measured %s on %s/%s, %s CPUs, %s; engine %s. %s", a[0], a[1], a[2], a[3], a[4], a[5], a[6])
		}),
	})
}

package narration

// The script's errors (package script): what is wrong with a line of a
// script, and where. An error's Text is one of the messages below; Error.In
// puts the line before it with script.line (or script.whole for the script
// as a whole), and script.wrap puts what a header or an option read before
// a nested message.
func init() {
	register(map[string]message{
		"script.line":  msg("line %s: %s", "строка %s: %s"),
		"script.whole": msg("script: %s", "сценарий: %s"),
		// script.wrap's arguments are a prefix, then the key and the
		// arguments of the message it prefixes.
		"script.wrap": fn(func(lang string, args []string) string {
			return args[0] + ": " + T(args[1], args[2:]...).In(lang)
		}),
		// script.given is a message another package wrote already in both
		// languages (a goal: header's error, judged by package practice):
		// its arguments are a prefix, the English and the Russian.
		"script.given": fn(func(lang string, args []string) string {
			if lang == "ru" {
				return args[0] + args[2]
			}
			return args[0] + args[1]
		}),
		"script.too-large":              msg("script is larger than the limit of %s bytes", "сценарий больше допустимых %s байт"),
		"script.not-utf8":               msg("not valid UTF-8 text", "не является текстом в UTF-8"),
		"script.narration-without-step": msg("narration (#en: / #ru:) must be followed by a step", "за пояснением (#en: / #ru:) должен идти шаг"),
		"script.control-characters":     msg("control characters are not allowed", "управляющие символы недопустимы"),
		"script.too-many-steps":         msg("too many steps: the limit is %s", "слишком много шагов: предел %s"),
		"script.header-after-steps":     msg("header %s must come before the first step", "заголовок %s должен стоять до первого шага"),
		"script.max-deliveries":         msg("max-deliveries: %s is not a whole number from 1 to %s", "max-deliveries: %s — не целое число от 1 до %s"),
		"script.broker-unknown":         msg("broker: %s is not a broker profile; valid profiles: %s", "broker: %s — нет такого профиля брокера; есть: %s"),
		"script.past-limit":             msg("past-limit: %s is not a choice; valid: %s", "past-limit: %s — нет такого варианта; есть: %s"),
		"script.duplicate-profile": msg(
			"duplicate: under broker: %s a message is delivered again only after a failure (a crash, a timeout, a nack); the profiles whose broker hands out copies with no failure: %s (as in broker: sqs)",
			"duplicate: при broker: %s сообщение доставляется снова только после сбоя (падения, таймаута, nack); копии без всякого сбоя выдают брокеры профилей: %s (например, broker: sqs)"),
		"script.duplicate-arguments": msg(
			"duplicate takes at most an operation id, not %s; as in: %s",
			"duplicate принимает разве что id операции, а не %s; например: %s"),
		"script.duplicate-unpublished": msg(
			"duplicate %s: no such operation has been published; as in: %s",
			"duplicate %s: такая операция не публиковалась; например: %s"),
		"script.goal-empty": msg(
			"goal: needs a goal line, as in: goal: handler=naive verdict=duplicate steps<=2",
			"goal: нужна строка цели, например: goal: handler=naive verdict=duplicate steps<=2"),
		"script.header-unknown": msg("unknown header %s; valid headers: %s", "неизвестный заголовок %s; допустимые: %s"),
		"script.handlers-empty": msg(
			"handlers: needs handler names separated by commas, as in: handlers: naive,inbox",
			"handlers: нужны имена обработчиков через запятую, например: handlers: naive,inbox"),
		"script.handlers-unknown": msg("handlers: unknown handler %s; valid handlers: %s", "handlers: неизвестный обработчик %s; допустимые: %s"),
		"script.handlers-twice":   msg("handlers: %s is named twice", "handlers: %s указан дважды"),
		"script.complete-arguments": msg(
			"complete takes no arguments, found %s: it runs the server's completer over every abandoned key",
			"complete не принимает аргументов, а найдено %s: он запускает завершитель сервера по всем брошенным ключам"),
		"script.op-missing": msg("%s needs an operation id first, as in: %s", "%s: сначала нужен id операции, например: %s"),
		"script.publish-again": msg(
			"operation %s of tenant %s is already published; use retry or change-payload to send it again",
			"операция %s тенанта %s уже опубликована; чтобы отправить её снова, используйте retry или change-payload"),
		"script.key-mode":    msg("key=%s: unknown key mode; valid modes: op, v7, fresh", "key=%s: неизвестный режим ключа; допустимые: op, v7, fresh"),
		"script.ship-refund": msg("ship: %s of tenant %s is a refund, not an order", "ship: %s тенанта %s — возврат, а не заказ"),
		"script.not-published": msg(
			"%s: operation %s of tenant %s has not been published yet; publish it first",
			"%s: операция %s тенанта %s ещё не опубликована; сначала опубликуйте её"),
		"script.amount-missing": msg(
			"%s needs amount=N (a positive whole number of minor units), as in: %s",
			"%s: нужна сумма amount=N (целое положительное число в минимальных единицах), например: %s"),
		"script.deliver-unpublished": msg(
			"deliver %s: no operation %s has been published; deliver takes a published operation id and crash=POINT, as in: %s",
			"deliver %s: операция %s не публиковалась; deliver принимает id опубликованной операции и crash=ТОЧКА, например: %s"),
		"script.crash-point": msg(
			"crash=%s: unknown crash point; valid points: before-effect, after-effect, before-ack, call:N (just before the delivery's N-th call to SQLite, Redis or the gateway), after-call:N (right after it), N from 1 to %s",
			"crash=%s: неизвестная точка падения; допустимые: before-effect, after-effect, before-ack, call:N (перед N-м обращением доставки к SQLite, Redis или шлюзу), after-call:N (сразу после него), N от 1 до %s"),
		"script.deliver-concurrent-arguments": msg(
			"deliver-concurrent takes same and switch=A[,B], found %s, as in: %s",
			"deliver-concurrent: допустимы same и switch=A[,B], а найдено %s, например: %s"),
		"script.no-arguments":     msg("%s takes no arguments, found %s", "%s не принимает аргументов, а найдено %s"),
		"script.advance-duration": msg("advance needs one duration, as in: %s", "advance: нужна одна длительность, например: %s"),
		"script.gateway-setting": msg(
			"gateway needs up or down (or timeout, dedup on, dedup off, stall DURATION), found %s, as in: %s",
			"gateway: нужно up или down (или timeout, dedup on, dedup off, stall ДЛИТЕЛЬНОСТЬ), а найдено %s, например: %s"),
		"script.verb-unknown":   msg("unknown verb %s; valid verbs: %s", "неизвестная команда %s; допустимые: %s"),
		"script.option-syntax":  msg("%s: unexpected %s; options are name=value: %s", "%s: неожиданное %s; параметры пишутся как имя=значение: %s"),
		"script.option-unknown": msg("%s: unknown option %s; valid options: %s", "%s: неизвестный параметр %s; допустимые: %s"),
		"script.option-twice":   msg("%s: option %s given twice", "%s: параметр %s указан дважды"),
		"script.id-empty":       msg("%s is empty", "%s: пустое значение"),
		"script.id-too-long":    msg("%s is %s bytes; the limit is %s", "%s: %s байт при пределе %s"),
		"script.id-unprintable": msg("%s %s has characters that are not printable", "%s %s содержит непечатаемые символы"),
		"script.switch-too-many": msg(
			"switch=%s: at most two calls (A for worker A, B for worker B), as in: switch=2,5",
			"switch=%s: не больше двух обращений (A для воркера A, B для воркера B), например: switch=2,5"),
		"script.switch-call": msg(
			"switch=%s: %s is not a call number; each is a whole number from 1 to %s, as in: switch=2,5",
			"switch=%s: %s — не номер обращения; нужно целое число от 1 до %s, например: switch=2,5"),
		"script.amount-invalid": msg(
			"not a positive whole number of minor units (1 to %s); money is never a fraction here",
			"не целое положительное число минимальных единиц (от 1 до %s); дробных денег здесь не бывает"),
		"script.duration-invalid": msg("%s is not a duration; examples: 90s, 15m, 2h, 1h30m, 3d", "%s — не длительность; примеры: 90s, 15m, 2h, 1h30m, 3d"),
		"script.duration-range":   msg("%s is out of range: from 1s to 3650d", "%s вне диапазона: от 1s до 3650d"),
		"script.side-api": msg(
			"%s is the API side, and this script tells the broker side (line %s): write the API story in a script of its own",
			"%s относится к API, а этот сценарий — о брокере (строка %s): историю про API напишите отдельным сценарием"),
		"script.side-broker": msg(
			"%s is the broker side, and this script tells the API side (line %s): write the broker story in a script of its own",
			"%s относится к брокеру, а этот сценарий — об API (строка %s): историю про брокер напишите отдельным сценарием"),
		"script.lose-response-twice": msg(
			"%s: lose-response given twice, or with request-concurrent (which has none), as in: %s",
			"%s: lose-response указан дважды или с request-concurrent (там его нет), например: %s"),
		"script.request-again": msg(
			"operation %s of tenant %s is already sent; use retry to send it again",
			"операция %s тенанта %s уже отправлена; чтобы отправить её снова, используйте retry"),
		"script.not-requested": msg(
			"%s: operation %s of tenant %s has not been requested yet; send it with request first",
			"%s: операция %s тенанта %s ещё не отправлена; сначала отправьте её через request"),
		"script.request-key-later": msg(
			"%s: key=%s: a later send of an operation keeps its key; key=quoted only spells it as an RFC 8941 string, as in: retry %s key=quoted",
			"%s: key=%s: повторная отправка операции сохраняет её ключ; key=quoted лишь записывает его строкой RFC 8941, например: retry %s key=quoted"),
		"script.request-account-later": msg("%s: account= belongs to the first request of an operation", "%s: account= задаётся в первом запросе операции"),
		"script.request-concurrent-amount": msg(
			"request-concurrent of a request sent before repeats it as it was: for another amount use retry %s amount=N",
			"request-concurrent уже отправленного запроса повторяет его как есть: для другой суммы используйте retry %s amount=N"),
		"script.request-key-mode": msg(
			"key=%s: unknown key mode; valid modes: op, v7, fresh, none, quoted (op's key spelled as an RFC 8941 string)",
			"key=%s: неизвестный режим ключа; допустимые: op, v7, fresh, none, quoted (ключ op, записанный строкой RFC 8941)"),
		"script.request-crash-point": msg(
			"crash=%s: unknown crash point; valid points: before-effect, after-effect, call:N (just before the request's N-th call to the database, Redis or the gateway), after-call:N (right after it), N from 1 to %s",
			"crash=%s: неизвестная точка падения; допустимые: before-effect, after-effect, call:N (перед N-м обращением запроса к базе, Redis или шлюзу), after-call:N (сразу после него), N от 1 до %s"),
		"script.kind-unknown": msg(
			"kind=%s: unknown message kind; valid kinds: payment, refund (with order=)",
			"kind=%s: неизвестный вид сообщения; допустимые: payment, refund (с order=)"),
		"script.refund-order-missing": msg(
			"kind=refund needs order=OP, the paid order it refunds, as in: publish ref-1 amount=100 kind=refund order=pay-1",
			"kind=refund: нужен order=ОПЕРАЦИЯ — оплаченный заказ, который возвращают, например: publish ref-1 amount=100 kind=refund order=pay-1"),
		"script.refund-account": msg(
			"kind=refund takes no account=: a refund goes back to the account of the order it refunds",
			"kind=refund без account=: возврат идёт на счёт возвращаемого заказа"),
		"script.order-without-refund": msg(
			"order= belongs to kind=refund: a payment is its own order",
			"order= задаётся только с kind=refund: платёж сам является заказом"),
		"script.refund-order-unpublished": msg(
			"order=%s: no payment %s of tenant %s has been published before this refund",
			"order=%s: платёж %s тенанта %s не публиковался до этого возврата"),
		"script.produce-op-missing": msg("produce needs an operation id first, as in: %s", "produce: сначала нужен id операции, например: %s"),
		"script.produce-amount-missing": msg(
			"produce needs amount=N (a positive whole number of minor units), as in: %s",
			"produce: нужна сумма amount=N (целое положительное число в минимальных единицах), например: %s"),
		"script.produce-mode": msg(
			"mode=%s: unknown producer mode; valid modes: dual-write (commit, then publish), publish-first (publish, then commit), outbox (commit an outbox row; the relay publishes)",
			"mode=%s: неизвестный режим продюсера; допустимые: dual-write (коммит, затем публикация), publish-first (публикация, затем коммит), outbox (коммит строки outbox; публикует relay)"),
		"script.produce-crash-point": msg(
			"crash=%s: unknown producer crash point; valid points: after-commit (the order committed, the message not yet published), after-publish (published, the order not yet committed; mode=publish-first)",
			"crash=%s: неизвестная точка падения продюсера; допустимые: after-commit (заказ закоммичен, сообщение ещё не опубликовано), after-publish (опубликовано, заказ ещё не закоммичен; mode=publish-first)"),
		"script.produce-crash-outbox": msg(
			"crash=after-publish: with mode=outbox the producer publishes nothing, the relay does: write relay crash=after-publish",
			"crash=after-publish: в режиме outbox продюсер ничего не публикует, это делает relay: напишите relay crash=after-publish"),
		"script.produce-again": msg(
			"operation %s of tenant %s is already produced; use retry to publish it again",
			"операция %s тенанта %s уже создана; чтобы опубликовать её снова, используйте retry"),
		"script.relay-crash-point": msg(
			"crash=%s: unknown relay crash point; the one valid point is after-publish (a row published, not yet marked sent)",
			"crash=%s: неизвестная точка падения relay; допустима только after-publish (строка опубликована, но ещё не отмечена отправленной)"),
		"script.batch-size-missing": msg("deliver-batch needs the batch size first, as in: %s", "deliver-batch: сначала нужен размер пачки, например: %s"),
		"script.batch-size": msg(
			"deliver-batch: %s is not a batch size; it is a whole number from 1 to %s",
			"deliver-batch: %s — не размер пачки; нужно целое число от 1 до %s"),
		"script.batch-commit": msg(
			"commit=%s: unknown commit mode; valid modes: after (commit the offset once the batch is handled), before (commit first, as auto-commit does)",
			"commit=%s: неизвестный режим коммита; допустимые: after (коммит смещения после обработки пачки), before (сначала коммит, как при auto-commit)"),
		"script.batch-crash-point": msg(
			"crash=%s: unknown batch crash point; the valid point is after-message:K (the worker dies right after the K-th message of the batch), K from 1 to the batch size %s",
			"crash=%s: неизвестная точка падения в пачке; допустима after-message:K (воркер падает сразу после K-го сообщения пачки), K от 1 до размера пачки %s"),
		"script.client-retry-policy": msg(
			"client-retry: unknown policy %s; valid policies: %s, as in: client-retry: exponential-jitter base=1m cap=8m attempts=5 retry-after",
			"client-retry: неизвестная политика %s; допустимые: %s, например: client-retry: exponential-jitter base=1m cap=8m attempts=5 retry-after"),
		"script.client-retry-none-options": msg(
			"client-retry: none takes no options, found %s",
			"client-retry: none не принимает параметров, а найдено %s"),
		"script.client-retry-after-twice": msg("client-retry: retry-after given twice", "client-retry: retry-after указан дважды"),
		"script.client-retry-attempts": msg(
			"client-retry: attempts=%s is not a whole number from 1 to %s",
			"client-retry: attempts=%s — не целое число от 1 до %s"),
		"script.client-retry-cap": msg(
			"client-retry: cap=%s is shorter than base=%s: the cap is the longest wait, at least the first one",
			"client-retry: cap=%s короче base=%s: cap — самое долгое ожидание, не короче первого"),
		"script.server-capacity": msg(
			"server-capacity: %s is not a whole number of requests per minute from 1 to %s (0: no limit)",
			"server-capacity: %s — не целое число запросов в минуту от 1 до %s (0 — без предела)"),
		// What each broker profile does that the model does not (BrokerProfile.Gaps).
		"script.gaps.lab": msg(
			"a teaching model: redelivery at once, a dead-letter queue after five deliveries, no deduplication of publishes",
			"учебная модель: повторная доставка сразу, очередь недоставленных после пяти доставок, без дедупликации публикаций"),
		"script.gaps.sqs": msg(
			"a copy with no failure (at-least-once storage) comes only where a script says duplicate (the checker tries one at every step); a handler's error is nacked at once, where SQS waits out the visibility timeout (a failed duplicate does wait)",
			"копия без сбоя (хранение «хотя бы один раз») приходит только там, где в сценарии стоит duplicate (проверка пробует её на каждом шаге); ошибка обработчика — немедленный nack, а SQS ждёт конца visibility timeout (неудачная копия ждёт)"),
		"script.gaps.sqs-fifo": msg(
			"message groups (ordering within a group) are not modelled",
			"группы сообщений (порядок внутри группы) не моделируются"),
		"script.gaps.rabbitmq": msg(
			"since 4.3 basic.nack does not count a delivery; the profile dead-letters past the limit, as the lab's queue with its dead-letter exchange does (past-limit: drop for a queue without one)",
			"с 4.3 basic.nack не считается доставкой; сверх предела профиль отправляет сообщение в очередь недоставленных, как очередь лаборатории с её dead-letter exchange (past-limit: drop — для очереди без него)"),
		"script.gaps.nats": msg(
			"past MaxDeliver the model keeps the message, as JetStream keeps it in the stream, but the MAX_DELIVERIES advisory a consumer could act on is not modelled",
			"после MaxDeliver модель оставляет сообщение, как JetStream оставляет его в потоке, но advisory MAX_DELIVERIES, на которое мог бы отреагировать потребитель, не моделируется"),
		"script.gaps.kafka": msg(
			"Kafka redelivers from the last committed offset, so every later message of the partition comes again too (the batch presets show it); the idempotent producer's deduplication of its own retries is not modelled",
			"Kafka доставляет заново с последнего закоммиченного смещения, то есть приходят снова и все последующие сообщения раздела (это показывают сценарии с пачками); дедупликация собственных повторов идемпотентного продюсера не моделируется"),
	})
}

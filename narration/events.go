package narration

import (
	"fmt"
	"strconv"
)

// The engine's words: what happened at each step of a run (event.…), what
// settling a run does (settle.…), and the run's budget (budget.…).
// Arguments are transport ids, keys, worker names, numbers and durations,
// written as they read in both languages; where the words around an
// argument depend on it (a plural, a flag), a function writes them.
func init() {
	register(map[string]message{
		// The broker.
		"event.broker.empty":       msg("nothing is ready to deliver", "доставлять нечего: очередь пуста"),
		"event.broker.no-op-ready": msg("no message of %s is ready to deliver", "готовых сообщений операции %s нет"),
		"event.broker.one-ready":   msg("only one message is ready: a single worker takes it", "готово только одно сообщение: его берёт один воркер"),
		"event.broker.none-flight": msg("no message is in flight", "неподтверждённых сообщений нет"),
		"event.broker.dlq-empty":   msg("the dead-letter queue is empty", "очередь недоставленных сообщений (DLQ) пуста"),
		"event.broker.dlq-replay": msg("replay from DLQ: key %s, amount %s, new transport id %s",
			"повтор из DLQ: ключ %s, сумма %s, новый транспортный id %s"),
		"event.broker.last-delivery": msg("the message has no delivery left under max-deliveries: a timeout would dead-letter it, so a single worker takes it",
			"у сообщения не осталось доставок в пределах max-deliveries: по таймауту оно ушло бы в DLQ, поэтому его берёт один воркер"),
		"event.broker.no-second-call": msg("%s finished before its call %s: its visibility timeout never ran out, so there is no second delivery",
			"%s закончил раньше обращения %s: его visibility timeout не истёк, и второй доставки нет"),
		"event.broker.no-second": msg("%s finished without waiting on the gateway: its visibility timeout never ran out, so there is no second delivery",
			"%s закончил, не дожидаясь шлюза: его visibility timeout не истёк, и второй доставки нет"),
		"event.broker.again": msg("%s: the visibility timeout runs out while worker-1 is still at work: delivered again",
			"%s: visibility timeout истекает, пока worker-1 ещё занят: сообщение доставляется снова"),
		// event.broker.deliver: id, worker, key, account, amount, delivery, redelivered (true or false).
		"event.broker.deliver": msg("%s to %s: key %s, %s +%s (delivery %s, redelivered=%s)",
			"%s для %s: ключ %s, %s +%s (доставка %s, redelivered=%s)"),
		// event.broker.deliver.arrow: the same, without the worker, which
		// the timeline's arrow points to (web/labview/timeline).
		"event.broker.deliver.arrow": msg("%[1]s: key %[3]s, %[4]s +%[5]s (delivery %[6]s, redelivered=%[7]s)",
			"%[1]s: ключ %[3]s, %[4]s +%[5]s (доставка %[6]s, redelivered=%[7]s)"),
		"event.broker.dlq": msg("%s delivered %s times without an ack: moved to the dead-letter queue",
			"%s доставлено %s раз без ack: перемещено в очередь недоставленных сообщений (DLQ)"),
		"event.broker.past-limit-drop": msg("%s delivered %s times without an ack: deleted (past-limit: drop), nothing can bring it back",
			"%s доставлено %s раз без ack: удалено (past-limit: drop), вернуть его нельзя"),
		"event.broker.past-limit-keep": msg("%s delivered %s times without an ack: kept in its stream or partition and never delivered again (past-limit: keep); dlq-replay publishes it again",
			"%s доставлено %s раз без ack: остаётся в своём потоке или разделе и больше не доставляется (past-limit: keep); dlq-replay публикует его снова"),
		"event.broker.requeue-timeout": msg("%s back to ready (visibility timeout)", "%s снова в очереди (истёк visibility timeout)"),
		"event.broker.requeue-nack":    msg("%s back to ready (nack)", "%s снова в очереди (nack)"),
		// The duplicate step: a copy with no failure (SQS at-least-once storage).
		"event.broker.duplicate-acked": msg("%s was acked, but a server holding a copy missed the delete: the copy is handed out again, no failure anywhere",
			"%s подтверждено, но сервер с копией пропустил удаление: копия выдаётся снова, без всякого сбоя"),
		"event.broker.duplicate-in-flight": msg("%s is in flight, but a server holding a copy missed the receive: the copy is handed out again before the visibility timeout, no failure anywhere",
			"%s ещё в обработке, но сервер с копией пропустил получение: копия выдаётся снова до конца visibility timeout, без всякого сбоя"),
		"event.broker.duplicate-none": msg("no message has been delivered yet: there is no copy to hand out again",
			"ни одно сообщение ещё не доставлялось: выдавать снова нечего"),
		"event.broker.duplicate-none-op": msg("no message of %s has been delivered yet: there is no copy to hand out again",
			"сообщения операции %s ещё не доставлялись: выдавать снова нечего"),
		"event.broker.duplicate-kept": msg("%s stays in flight until its visibility timeout: SQS has no nack, a message received and not deleted comes back when its timeout runs out",
			"%s остаётся в обработке до конца visibility timeout: в SQS нет nack, полученное и не удалённое сообщение возвращается, когда истекает его таймаут"),
		// event.broker.dedup-drop: key, how long ago ("" for moments ago), the window.
		"event.broker.dedup-drop": fn(func(lang string, a []string) string {
			if lang == "ru" {
				when := "только что"
				if a[1] != "" {
					when = a[1] + " назад"
				}
				return fmt.Sprintf("публикация отброшена: брокер принял ключ %s %s, в пределах своего окна дедупликации (%s)", a[0], when, a[2])
			}
			when := "moments ago"
			if a[1] != "" {
				when = a[1] + " ago"
			}
			return fmt.Sprintf("publish dropped: the broker took key %s %s, within its %s dedup window", a[0], when, a[2])
		}),

		// The producer, the outbox relay and the warehouse. The first
		// argument of event.producer.publish is how it publishes: publish,
		// retry or change-payload.
		"event.producer.publish": fn(func(lang string, a []string) string {
			what := map[string][2]string{"publish": {"publish", "публикация"}, "retry": {"producer retry", "повтор продюсера"},
				"change-payload": {"same key, changed payload", "тот же ключ, другое содержимое"}}[a[0]]
			if lang == "ru" {
				return fmt.Sprintf("%s: ключ %s, тенант %s, %s +%s как %s", what[1], a[1], a[2], a[3], a[4], a[5])
			}
			return fmt.Sprintf("%s: key %s, tenant %s, %s +%s as %s", what[0], a[1], a[2], a[3], a[4], a[5])
		}),
		"event.producer.crash-commit-outbox": msg("the order service dies after its commit: the outbox row is committed with the order, and the relay will publish it",
			"сервис заказов падает после коммита: строка outbox закоммичена вместе с заказом, и relay её опубликует"),
		"event.producer.outbox-waits": msg("nothing published yet: the outbox row waits for the relay", "пока ничего не опубликовано: строка outbox ждёт relay"),
		"event.producer.crash-publish-first": msg("the order service dies after publishing, before its commit: the order is rolled back, the message is out",
			"сервис заказов падает после публикации, до коммита: заказ откатывается, а сообщение уже ушло"),
		"event.producer.crash-commit-both":  msg("the order service dies after its commit: both writes were done", "сервис заказов падает после коммита: обе записи уже сделаны"),
		"event.producer.crash-publish-both": msg("the order service dies after publishing: both writes were done", "сервис заказов падает после публикации: обе записи уже сделаны"),
		"event.producer.crash-commit-dual":  msg("the order service dies after its commit, before publishing: the order exists and no message will ever say so", "сервис заказов падает после коммита, до публикации: заказ есть, а сообщения о нём не будет никогда"),
		"event.relay.none":                  msg("the outbox has no pending rows: nothing to publish", "в outbox нет неотправленных строк: публиковать нечего"),
		"event.relay.publish":               msg("relay publishes outbox row %s: key %s, tenant %s, %s +%s as %s", "relay публикует строку outbox %s: ключ %s, тенант %s, %s +%s как %s"),
		"event.relay.crash":                 msg("the relay dies after publishing row %s, before marking it sent: the row is still pending", "relay падает после публикации строки %s, не успев отметить её отправленной: строка по-прежнему ждёт"),
		"event.warehouse.no-order":          msg("there is no order %s: nothing shipped", "заказа %s нет: отгружать нечего"),
		"event.warehouse.not-paid":          msg("order %s is %s, not PAID: nothing shipped", "заказ %s в статусе %s, а не PAID: отгружать нечего"),

		// The gateway and the clock.
		"event.gateway.up":        msg("payment gateway up", "платёжный шлюз снова работает"),
		"event.gateway.down":      msg("payment gateway down: every charge fails", "платёжный шлюз недоступен: каждое списание падает"),
		"event.gateway.timeout":   msg("payment gateway times out: every charge takes effect, but its answer is lost, so the caller gets an error and cannot tell that it charged", "платёжный шлюз отвечает таймаутом: каждое списание проходит, но ответ теряется, и вызывающий получает ошибку, не зная, что деньги списаны"),
		"event.gateway.dedup-on":  msg("the payment provider now deduplicates on the reference: a charge with a reference it has already charged succeeds without charging again", "платёжный провайдер теперь дедуплицирует по идентификатору списания: списание с уже знакомым идентификатором завершается успешно, но повторно ничего не списывает"),
		"event.gateway.dedup-off": msg("the payment provider no longer deduplicates: every charge charges", "платёжный провайдер больше не дедуплицирует: каждое списание списывает деньги"),
		"event.gateway.stall":     msg("the next charge will hang for %s and never reach the provider: its caller waits, then sees a timeout", "следующее списание зависнет на %s и так и не дойдёт до провайдера: вызывающий прождёт и получит таймаут"),
		"event.gateway.charge":    msg("charge %s to %s, reference %s", "списать %s со счёта %s, идентификатор списания %s"),
		"event.clock.advance":     msg("+%s: now %s", "+%s: теперь %s"),
		"event.clock.lease":       msg("the broker waits out the %s visibility timeout: +%s, now %s", "брокер выжидает visibility timeout %s: +%s, теперь %s"),
		"event.clock.gateway":     msg("%s waits %s for the gateway: now %s", "%s ждёт шлюз %s: теперь %s"),
		"event.clock.expired":     msg("Redis key %s expired", "ключ Redis %s истёк"),

		// A worker (or a server, on the API side) at work.
		"event.worker.tx-holds-at": msg("%s is inside a transaction at its call %s: the other worker would wait for its lock, so it hands over once the transaction ends",
			"%s внутри транзакции на обращении %s: другой воркер ждал бы её блокировку, поэтому передача хода — после конца транзакции"),
		"event.worker.tx-holds": msg("%[1]s is inside a transaction: the other worker would wait for its lock, so %[1]s runs on",
			"%[1]s внутри транзакции: другой воркер ждал бы её блокировку, поэтому %[1]s продолжает"),
		"event.worker.switch": msg("switch: %s pauses just before its call %s (%s); the other worker runs now",
			"переключение: %s останавливается перед обращением %s (%s); сейчас работает другой воркер"),
		"event.worker.race-window":  msg("race window: the other worker runs now", "окно гонки: сейчас работает другой воркер"),
		"event.worker.slow-ack":     msg("%s is slow to ack: the other worker runs now", "%s медлит с ack: сейчас работает другой воркер"),
		"event.worker.slow-answer":  msg("%s is slow to answer: the other copy runs now", "%s медлит с ответом: сейчас работает другая копия"),
		"event.worker.gateway-wait": msg("%s waits for the gateway: the other worker runs now", "%s ждёт ответа шлюза: сейчас работает другой воркер"),
		"event.worker.pg-blocked": msg("%s waits inside PostgreSQL for a lock the other worker's open transaction holds (pg_blocking_pids): the other worker runs now",
			"%s ждёт внутри PostgreSQL блокировку, которую держит открытая транзакция другого воркера (pg_blocking_pids): сейчас работает другой воркер"),
		"event.worker.pg-unblocked": msg("%s's statement returns: the transaction it waited for has ended", "запрос %s завершается: транзакция, которую он ждал, закончилась"),
		"event.worker.tx-open": msg("the handler returned with its transaction still open: nothing commits it, so it is rolled back",
			"обработчик вернул управление с открытой транзакцией: её никто не закоммитит, поэтому она откатывается"),
		// The crashes: the first argument is who dies, "" for "the worker"
		// (on the API side the server's name: server-1).
		"event.crash.before-call": dies("%s dies just before its call %s: %s", "%s падает перед обращением %s: %s"),
		"event.crash.after-call":  dies("%s dies right after its call %s", "%s падает сразу после обращения %s"),
		"event.crash.at":          dies("%s dies at %s", "%s падает в точке %s"),
		"event.crash.before-nack": msg("worker dies before it can nack", "воркер падает, не успев отправить nack"),
		"event.crash.before-ack":  msg("worker dies before it can ack", "воркер падает, не успев отправить ack"),
		"event.crash.unreached-calls": fn(func(lang string, a []string) string {
			n, _ := strconv.Atoi(a[0])
			if lang == "ru" {
				return fmt.Sprintf("обработчик сделал обращений: %s и не дошёл до %s: воркер не упал", a[0], a[1])
			}
			return fmt.Sprintf("the handler made %s %s, never reaching %s: the worker did not crash", a[0], Plural(lang, n, "call", "", "calls"), a[1])
		}),
		"event.crash.unreached": msg("the handler never reached %s: the worker did not crash", "обработчик не дошёл до %s: воркер не упал"),
		// event.worker.late: what came late ("ack", or the nack's error
		// after "nack:"), the transport id.
		"event.worker.late-ack": msg("late ack: %s is no longer in flight, the other worker settled it first, so this changes nothing",
			"запоздалый ack: %s уже не в обработке, другой воркер завершил его раньше, и это ничего не меняет"),
		"event.worker.late-nack": msg("late nack (%[2]s): %[1]s is no longer in flight, the other worker settled it first, so this changes nothing",
			"запоздалый nack (%[2]s): %[1]s уже не в обработке, другой воркер завершил его раньше, и это ничего не меняет"),
		"event.worker.quarantine": msg("%s set aside in quarantine: %s", "%s отложено в карантин: %s"),

		// Batches (deliver-batch).
		"event.batch.poll": fn(func(lang string, a []string) string {
			if lang == "ru" {
				return fmt.Sprintf("worker-1 забирает пачку из %s сообщ.: %s", a[0], a[1])
			}
			n, _ := strconv.Atoi(a[0])
			return fmt.Sprintf("worker-1 polls a batch of %s %s: %s", a[0], Plural(lang, n, "message", "", "messages"), a[1])
		}),
		"event.batch.short": msg("only %s ready: the batch is smaller than %s", "готово только %s: пачка меньше %s"),
		"event.batch.commit": fn(func(lang string, a []string) string {
			if lang == "ru" {
				return fmt.Sprintf("коммит смещения: подтверждено сообщений: %s (%s)", a[0], a[1])
			}
			n, _ := strconv.Atoi(a[0])
			return fmt.Sprintf("commit offset: %s %s acknowledged (%s)", a[0], Plural(lang, n, "message", "", "messages"), a[1])
		}),
		"event.batch.crash-replay": msg("worker-1 dies after its message %s of %s, before it commits: the whole batch stays in flight, and the broker will replay it from the last committed offset",
			"worker-1 падает после сообщения %s из %s, до коммита: вся пачка остаётся в обработке, и брокер повторит её с последнего закоммиченного смещения"),
		"event.batch.crash-lost": msg("worker-1 dies after its message %s of %s: the offset was committed before the batch, so the messages it never reached are lost",
			"worker-1 падает после сообщения %s из %s: смещение закоммичено до пачки, поэтому сообщения, до которых он не дошёл, потеряны"),
		"event.batch.no-crash":  msg("the batch ended before message %s: the worker did not crash", "пачка закончилась раньше сообщения %s: воркер не упал"),
		"event.batch.committed": msg("%s failed (%s), but its offset is committed: it will not be delivered again", "%s не обработано (%s), но его смещение уже закоммичено: повторно его не доставят"),
		"event.batch.nack":      msg("nack: %s; the consumer seeks back to %s", "nack: %s; потребитель возвращается к %s"),

		// The API: a client's requests to the servers.
		// event.api.request: id, server, "second" for a second copy sent
		// while the first is in progress (else ""), the Idempotency-Key
		// header ("" for none), the body.
		"event.api.request": fn(func(lang string, a []string) string {
			return request(lang, a, true)
		}),
		// event.api.request.arrow: the same, without the server, which the
		// timeline's arrow points to (web/labview/timeline); a second copy
		// keeps it, the words on the copy following it.
		"event.api.request.arrow": fn(func(lang string, a []string) string {
			return request(lang, a, a[2] != "")
		}),
		"event.api.died":  msg("%s: no answer, the server died: for the client the request timed out", "%s: ответа нет, сервер упал: для клиента запрос завершился по таймауту"),
		"event.api.lost":  msg("%s: the answer never reaches the client: for it, the request timed out", "%s: ответ не доходит до клиента: для него запрос завершился по таймауту"),
		"event.api.shed":  msg("503 Service Unavailable (Retry-After: %s) %s: the server is at capacity and sheds the request before the handler runs", "503 Service Unavailable (Retry-After: %s) %s: сервер загружен до предела и отбрасывает запрос, не запуская обработчик"),
		"event.api.gives": msg("%s/%s: no final answer, and the client does not retry: it gave up", "%s/%s: окончательного ответа нет, а клиент не повторяет: он сдался"),
		"event.api.gives-up": fn(func(lang string, a []string) string {
			if lang == "ru" {
				return fmt.Sprintf("%s/%s: окончательного ответа нет и после %s повторов: клиент сдаётся", a[0], a[1], a[2])
			}
			n, _ := strconv.Atoi(a[2])
			return fmt.Sprintf("%s/%s: no final answer after %s %s: the client gives up", a[0], a[1], a[2], Plural(lang, n, "retry", "", "retries"))
		}),
		"event.api.no-completer": msg("%s has no completer: abandoned keys stay as they are", "у %s нет завершителя: брошенные ключи остаются как есть"),
		"event.api.completer": msg("the completer runs: it finishes keys left unfinished by clients that gave up, and deletes keys past their lifetime",
			"запускается завершитель: он доводит до конца ключи, брошенные сдавшимися клиентами, и удаляет ключи с истёкшим сроком"),
		"event.api.completer-failed": msg("the completer failed: %s", "завершитель завершился ошибкой: %s"),

		// The oracle.
		"event.oracle.conflict": msg("amount changed to %[2]s under key %[1]s, yet acked as a success and not quarantined",
			"сумма под ключом %[1]s изменилась на %[2]s, но сообщение подтверждено как успех и не попало в карантин"),
		"event.oracle.api-conflict": msg("key %s reused with another body (amount %s), yet answered %s as if it were the first request: 422 was due",
			"ключ %s повторён с другим телом (сумма %s), но ответ %s, будто это первый запрос: нужен 422"),
		"event.oracle.no-key": msg("answered %s without an Idempotency-Key, where 400 was due: a request the client cannot retry safely should be refused",
			"ответ %s на запрос без Idempotency-Key, а нужен 400: запрос, который клиент не может безопасно повторить, надо отклонить"),
		"event.oracle.reused": msg("answered %s to a key reused with another body, where 422 was due", "ответ %s на ключ, повторённый с другим телом, а нужен 422"),
		"event.oracle.race": msg("answered %s while another request with the key was in flight, where 409 (or the one success) was due",
			"ответ %s, пока другой запрос с этим ключом ещё выполнялся, а нужен 409 (или единственный успех)"),
		"event.oracle.replay": msg("answered %s %s to a repeat, where the saved answer %s %s was due", "ответ %s %s на повтор, а нужен сохранённый ответ %s %s"),
		"event.oracle.new": msg("answered %s to a request whose key no other request holds, where a success was due",
			"ответ %s на запрос, ключ которого не занят другим запросом, а нужен успех"),

		// What settling a run does.
		"settle.messages": msg("settle: gateway up, redeliver in-flight messages, drain",
			"доводим до конца: шлюз работает, сообщения в обработке доставляются снова, очередь разбирается"),
		"settle.outbox": msg("settle: gateway up, the outbox relay publishes pending rows, redeliver in-flight messages, drain",
			"доводим до конца: шлюз работает, relay публикует строки outbox, сообщения в обработке доставляются снова, очередь разбирается"),
		"settle.api": msg("settle: gateway up, the client retries every request it got no final answer to (after 0, 1, 2, 4 and 8 minutes)",
			"доводим до конца: шлюз работает, клиент повторяет каждый запрос без окончательного ответа (через 0, 1, 2, 4 и 8 минут)"),
		"settle.api-none": msg("settle: gateway up; the client does not retry (client-retry: none)",
			"доводим до конца: шлюз работает; клиент не повторяет запросы (client-retry: none)"),
		"settle.api-policy": msg("settle: gateway up, the client retries every request it got no final answer to (client-retry: %s)",
			"доводим до конца: шлюз работает, клиент повторяет каждый запрос без окончательного ответа (client-retry: %s)"),

		// The run's budget: the limit, what a Lua script counts as.
		"budget.over": msg("the run needs more than %s handler deliveries, the limit for one run; "+
			"shorten the script (fewer publishes, drains or DLQ replays); "+
			"a Lua script a handler runs in Redis counts as %s deliveries",
			"прогону нужно больше %s доставок обработчикам, а это предел одного прогона; "+
				"сократите сценарий (меньше публикаций, drain или переотправок из DLQ); "+
				"Lua-скрипт, который обработчик выполняет в Redis, считается за %s доставок"),
		"budget.at-line":  msg("line %s: %s", "строка %s: %s"),
		"budget.settling": msg("settling after the script: %s", "доведение до конца после сценария: %s"),

		// What ends a text the trace cut: the count of bytes cut.
		"trace.cut": msg("… %s more bytes", "… ещё %s байт"),
	})
}

// request writes event.api.request's arguments, the server it goes to
// with to.
func request(lang string, a []string, to bool) string {
	target, again, header := "", "", a[3]
	if to {
		target = pick(lang, " to ", " для ") + a[1]
	}
	if a[2] != "" {
		again = pick(lang, " (a second copy, while the first is still in progress)", " (вторая копия, пока первая ещё обрабатывается)")
	}
	if header == "" {
		header = pick(lang, "no Idempotency-Key", "без Idempotency-Key")
	} else {
		header = "Idempotency-Key: " + header
	}
	return fmt.Sprintf("%s%s%s: POST /payments, %s, %s", a[0], target, again, header, a[4])
}

// pick is en, or ru in Russian.
func pick(lang, en, ru string) string {
	if lang == "ru" {
		return ru
	}
	return en
}

// dies is a crash's message whose first argument is who dies: "" for the
// worker (its role, in the reader's language), or a process's name.
func dies(en, ru string) message {
	return fn(func(lang string, a []string) string {
		who := a[0]
		if who == "" {
			who = pick(lang, "worker", "воркер")
		}
		args := make([]any, len(a))
		args[0] = who
		for i, s := range a[1:] {
			args[i+1] = s
		}
		return fmt.Sprintf(pick(lang, en, ru), args...)
	})
}

package narration

import (
	"fmt"
	"strconv"
)

// The words of package brokers: what a real broker does, as the lab runs
// it. Arguments are broker names, offsets, counts and past-limit: choices,
// written as they read in both languages.
func init() {
	register(map[string]message{
		// NATS JetStream (brokers/nats.go).
		// brokers.nats.puback: stream seq.
		"brokers.nats.puback": msg("JetStream PubAck: stream seq %s", "JetStream PubAck: stream seq %s"),
		// brokers.nats.fetch: stream seq, consumer seq, NumDelivered.
		"brokers.nats.fetch": fn(func(lang string, a []string) string {
			word := pick(lang, "first delivery", "первая доставка")
			if n, _ := strconv.Atoi(a[2]); n > 1 {
				word = pick(lang, "redelivered", "повторная доставка")
			}
			return fmt.Sprintf("JetStream Fetch: stream seq %s, consumer seq %s, NumDelivered %s (%s)", a[0], a[1], a[2], word)
		}),
		"brokers.nats.ackwait-one": msg("the lab's clock passed AckWait for %s: -NAK to the server, as its own AckWait would",
			"часы лаборатории прошли AckWait для %s: -NAK серверу, как сделал бы его собственный AckWait"),
		// brokers.nats.max-deliver: id, NumDelivered, MaxDeliver.
		"brokers.nats.max-deliver": msg("JetStream: %s has NumDelivered %s = MaxDeliver %s: the server will not deliver it again; it stays in the stream (a MAX_DELIVERIES advisory, no dead-letter queue)",
			"JetStream: у %s NumDelivered %s = MaxDeliver %s: сервер больше его не доставит; оно остаётся в потоке (advisory MAX_DELIVERIES, очереди недоставленных нет)"),
		// brokers.nats.gone: id, AckWait.
		"brokers.nats.gone": msg("JetStream: the worker is gone, and the server does not know: %s stays pending until its AckWait (%s)",
			"JetStream: воркера нет, а сервер об этом не знает: %s ждёт подтверждения до истечения AckWait (%s)"),
		"brokers.nats.ackwait-all": msg("the lab's clock passed AckWait: -NAK to the server for each message in flight, as its own AckWait would",
			"часы лаборатории прошли AckWait: -NAK серверу для каждого неподтверждённого сообщения, как сделал бы его собственный AckWait"),

		// Kafka (brokers/kafka.go).
		"brokers.kafka.produce": msg("Kafka produce: offset %s of topups/0", "Kafka produce: смещение %s в topups/0"),
		// brokers.kafka.skip: offset, why: "held" (with another worker)
		// or "acked" (acked above the committed offset).
		"brokers.kafka.skip": fn(func(lang string, a []string) string {
			why := pick(lang, "with another worker", "у другого воркера")
			if a[1] == "acked" {
				why = pick(lang, "acked already (the lab's consumer keeps its acks above the committed offset)",
					"уже подтверждено (потребитель лаборатории помнит подтверждения выше закоммиченного смещения)")
			}
			return fmt.Sprintf(pick(lang, "Kafka fetch: offset %s again, %s: skipped", "Kafka fetch: снова смещение %s, %s: пропущено"), a[0], why)
		}),
		// brokers.kafka.fetch: offset, committed, the lab's delivery count.
		"brokers.kafka.fetch": msg("Kafka fetch: offset %s of topups/0, committed %s; Kafka counts no deliveries: delivery %s is the lab's count",
			"Kafka fetch: смещение %s в topups/0, закоммичено %s; Kafka не считает доставки: доставка %s — счёт лаборатории"),
		// brokers.kafka.lapse: offset, committed.
		"brokers.kafka.lapse": msg("the lab's clock passed session.timeout.ms for the worker holding offset %s: the consumer seeks back to the committed offset %s",
			"часы лаборатории прошли session.timeout.ms для воркера со смещением %s: потребитель возвращается к закоммиченному смещению %s"),
		// brokers.kafka.held and brokers.kafka.commit: what ("ack" or
		// "dead-lettered"), the first offset settled, the last ("" for
		// one), the offset committed up to, the committed offset.
		"brokers.kafka.held": fn(func(lang string, a []string) string {
			return fmt.Sprintf(pick(lang, "%s %s: held, not committed, as offset %s below it is not done; committed stays %s",
				"%s %s: отложено, не закоммичено, так как смещение %s ниже ещё не обработано; закоммичено по-прежнему %s"),
				kafkaWhat(lang, a[0]), kafkaOffsets(lang, a[1], a[2]), a[3], a[4])
		}),
		"brokers.kafka.commit": fn(func(lang string, a []string) string {
			return fmt.Sprintf(pick(lang, "%s %s: Kafka commit %s for the group; committed %s", "%s %s: Kafka commit %s для группы; закоммичено %s"),
				kafkaWhat(lang, a[0]), kafkaOffsets(lang, a[1], a[2]), a[3], a[4])
		}),
		// brokers.kafka.seek: why ("nack" or "session"), the committed offset.
		"brokers.kafka.seek": fn(func(lang string, a []string) string {
			why := pick(lang, "Kafka has no nack", "в Kafka нет nack")
			if a[0] == "session" {
				why = pick(lang, "the lab's clock passed session.timeout.ms", "часы лаборатории прошли session.timeout.ms")
			}
			return fmt.Sprintf(pick(lang, "%s: the consumer seeks back to the committed offset %s, and the next fetch reads again from there",
				"%s: потребитель возвращается к закоммиченному смещению %s, и следующая выборка читает заново оттуда"), why, a[1])
		}),
		// brokers.kafka.dead-letter: offset, max-deliveries, the offset in the dead-letter topic.
		"brokers.kafka.dead-letter": msg("Kafka has no delivery limit: offset %s reached max-deliveries %s (the lab's count), so the lab's consumer produced it to the dead-letter topic (offset %s there)",
			"в Kafka нет предела доставок: смещение %s достигло max-deliveries %s (счёт лаборатории), и потребитель лаборатории отправил его в топик недоставленных (там смещение %s)"),
		// brokers.kafka.gone: offset, committed.
		"brokers.kafka.gone": msg("Kafka: the consumer is gone; the group notices after session.timeout.ms; offset %s stays uncommitted (committed %s)",
			"Kafka: потребителя нет; группа заметит это после session.timeout.ms; смещение %s не закоммичено (закоммичено %s)"),

		// RabbitMQ (brokers/rabbitmq.go).
		// brokers.rabbitmq.confirm: delivery tag, message-id.
		"brokers.rabbitmq.confirm": msg("RabbitMQ publisher confirm: basic.ack, delivery tag %s (message-id %s)",
			"RabbitMQ publisher confirm: basic.ack, delivery tag %s (message-id %s)"),
		// brokers.rabbitmq.get-ok: channel, delivery tag, message-id,
		// redelivered (true or false), x-delivery-count, message-count.
		"brokers.rabbitmq.get-ok": msg("RabbitMQ basic.get-ok on channel %s: delivery tag %s, message-id %s, redelivered=%s, x-delivery-count %s, message-count %s",
			"RabbitMQ basic.get-ok на канале %s: delivery tag %s, message-id %s, redelivered=%s, x-delivery-count %s, message-count %s"),
		// brokers.rabbitmq.ack: channel, delivery tag.
		"brokers.rabbitmq.ack": msg("RabbitMQ basic.ack on channel %s: delivery tag %s", "RabbitMQ basic.ack на канале %s: delivery tag %s"),
		// brokers.rabbitmq.returned: how ("reject" or "closed"), channel,
		// delivery tag, message-id, x-delivery-count.
		"brokers.rabbitmq.returned": fn(func(lang string, a []string) string {
			return fmt.Sprintf(pick(lang, "RabbitMQ %s: %s is back in the quorum queue, its x-delivery-count now %s",
				"RabbitMQ %s: %s снова в кворумной очереди, его x-delivery-count теперь %s"), rabbitHow(lang, a[0], a[1], a[2]), a[3], a[4])
		}),
		// brokers.rabbitmq.returned-dead: how, channel, delivery tag,
		// message-id, deliveries, x-delivery-limit.
		"brokers.rabbitmq.returned-dead": fn(func(lang string, a []string) string {
			return fmt.Sprintf(pick(lang, "RabbitMQ %s: %s had %s deliveries, past x-delivery-limit %s: the quorum queue dead-letters it to the dead-letter queue (x-death reason delivery_limit)",
				"RabbitMQ %s: у %s доставок: %s, больше x-delivery-limit %s: кворумная очередь отправляет его в очередь недоставленных (x-death reason delivery_limit)"),
				rabbitHow(lang, a[0], a[1], a[2]), a[3], a[4], a[5])
		}),
		// brokers.rabbitmq.timeout-return and brokers.rabbitmq.timeout-close:
		// message-id, channel, delivery tag.
		"brokers.rabbitmq.timeout-return": msg("the lab's clock passed the visibility timeout of %s: the lab closes channel %s (delivery tag %s unacked), as RabbitMQ's consumer_timeout would, and the server returns it",
			"часы лаборатории прошли visibility timeout для %s: лаборатория закрывает канал %s (delivery tag %s не подтверждён), как сделал бы consumer_timeout RabbitMQ, и сервер возвращает сообщение"),
		"brokers.rabbitmq.timeout-close": msg("the lab's clock passed the visibility timeout of %s: the lab closes channel %s (delivery tag %s unacked), as RabbitMQ's consumer_timeout would",
			"часы лаборатории прошли visibility timeout для %s: лаборатория закрывает канал %s (delivery tag %s не подтверждён), как сделал бы consumer_timeout RabbitMQ"),
		// brokers.rabbitmq.timeout-dead: message-id, deliveries, x-delivery-limit.
		"brokers.rabbitmq.timeout-dead": msg("RabbitMQ: %s had %s deliveries, past x-delivery-limit %s: dead-lettered (x-death reason delivery_limit)",
			"RabbitMQ: у %s доставок: %s, больше x-delivery-limit %s: в очереди недоставленных (x-death reason delivery_limit)"),
		// brokers.rabbitmq.dlq-get: message-id, x-first-death-reason.
		"brokers.rabbitmq.dlq-get": msg("RabbitMQ basic.get-ok from the dead-letter queue: message-id %s, x-first-death-reason %s",
			"RabbitMQ basic.get-ok из очереди недоставленных: message-id %s, x-first-death-reason %s"),

		// Why a real broker does only some of past-limit:'s choices
		// (brokers.PastLimits), one message per broker.
		"brokers.past-limit.nats": msg("past MaxDeliver JetStream stops delivering the message and keeps it in the stream; it has no dead-letter queue and deletes nothing",
			"после MaxDeliver JetStream перестаёт доставлять сообщение и хранит его в потоке; очереди недоставленных сообщений у него нет, и он ничего не удаляет"),
		"brokers.past-limit.kafka": msg("Kafka has no delivery limit: past max-deliveries the lab's consumer produces the record to a dead-letter topic and commits past it, and the record stays in its partition until retention; no consumer can delete a record",
			"у Kafka нет предела доставок: после max-deliveries потребитель лаборатории отправляет запись в топик недоставленных и коммитит смещение за ней, а сама запись остаётся в партиции до истечения срока хранения; удалить запись потребитель не может"),
		"brokers.past-limit.rabbitmq": msg("the lab declares its quorum queue with a dead-letter exchange, so past x-delivery-limit the server dead-letters the message; it neither keeps it (a queue has no stream to keep it in) nor drops it (a quorum queue drops only without a dead-letter exchange)",
			"лаборатория объявляет кворумную очередь с dead-letter exchange, поэтому после x-delivery-limit сервер отправляет сообщение в очередь недоставленных; он не хранит его (у очереди нет потока, где его хранить) и не удаляет (кворумная очередь удаляет сообщение, только если dead-letter exchange не задан)"),
	})
}

// kafkaWhat is what settled offsets: "ack" or "dead-lettered".
func kafkaWhat(lang, what string) string {
	if what == "dead-lettered" {
		return pick(lang, "dead-lettered", "в DLQ:")
	}
	return "ack"
}

// kafkaOffsets names the offsets settled: one, or a batch's first and
// last (last not "").
func kafkaOffsets(lang, first, last string) string {
	if last == "" {
		return fmt.Sprintf(pick(lang, "offset %s", "смещения %s"), first)
	}
	return fmt.Sprintf(pick(lang, "offsets %s … %s (one commit for the batch)", "смещений %s … %s (один коммит на пачку)"), first, last)
}

// rabbitHow is how a message came back to RabbitMQ: "reject" (a
// basic.reject with requeue) or "closed" (its channel closed with the
// worker), on channel with delivery tag.
func rabbitHow(lang, how, channel, tag string) string {
	if how == "reject" {
		return fmt.Sprintf(pick(lang, "basic.reject requeue=true on channel %s, delivery tag %s", "basic.reject requeue=true на канале %s, delivery tag %s"), channel, tag)
	}
	return fmt.Sprintf(pick(lang, "channel %s closed with the worker, delivery tag %s unacked", "канал %s закрылся вместе с воркером, delivery tag %s не подтверждён"), channel, tag)
}

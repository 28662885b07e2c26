package narration

// The words of package brokers: what a real broker does, as the lab runs
// it. Arguments are broker names, offsets, counts and past-limit: choices,
// written as they read in both languages.
func init() {
	register(map[string]message{
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

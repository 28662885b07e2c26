package narration

// The verdicts' words (verdict.NAME, what it means: verdict.NAME.explain,
// NAME as sim.Verdict spells it) and what each broker profile's model
// leaves out (profile.NAME.gaps).
func init() {
	register(map[string]message{
		"verdict.ok":                      msg("ok", "верно"),
		"verdict.ok.explain":              msg("credited exactly what was asked", "зачислено ровно то, что просили"),
		"verdict.duplicate":               msg("duplicate", "дубль"),
		"verdict.duplicate.explain":       msg("credited too much", "зачислено больше, чем нужно"),
		"verdict.lost":                    msg("lost", "потеря"),
		"verdict.lost.explain":            msg("credited too little", "зачислено меньше, чем нужно"),
		"verdict.poison":                  msg("poison", "зацикливание"),
		"verdict.poison.explain":          msg("a handled message looped into the DLQ", "уже обработанное сообщение ходит по кругу, пока не попадёт в DLQ"),
		"verdict.silent-conflict":         msg("silent conflict", "тихий конфликт"),
		"verdict.silent-conflict.explain": msg("another payload under the same key was acked as a repeat, neither applied nor quarantined", "другое содержимое под тем же ключом подтверждено как повтор: не применено и не отправлено в карантин"),
		"verdict.wrong-status":            msg("wrong status", "неверный статус"),
		"verdict.wrong-status.explain":    msg("the API answered a request with another status than the one due", "API ответил на запрос не тем статусом, который положен"),

		"profile.lab.gaps": msg("a teaching model: redelivery at once, a dead-letter queue after five deliveries, no deduplication of publishes",
			"учебная модель: повторная доставка сразу, очередь недоставленных после пяти доставок, без дедупликации публикаций"),
		"profile.sqs.gaps": msg("a standard queue may also deliver a copy with no failure at all (at-least-once storage); the model delivers copies only after a crash, a timeout or a retry",
			"стандартная очередь может доставить копию и без всякого сбоя (хранение «хотя бы один раз»); модель доставляет копии только после падения, таймаута или повтора"),
		"profile.sqs-fifo.gaps": msg("message groups (ordering within a group) are not modelled",
			"группы сообщений (порядок внутри группы) не моделируются"),
		"profile.rabbitmq.gaps": msg("without a dead-letter exchange a message past the limit is dropped, the model dead-letters it; since 4.3 basic.nack does not count a delivery",
			"без dead-letter exchange сообщение сверх предела удаляется, модель отправляет его в очередь недоставленных; с 4.3 basic.nack не считается доставкой"),
		"profile.nats.gaps": msg("past MaxDeliver JetStream stops delivering and keeps the message in the stream (an advisory, no dead-letter queue); the model dead-letters it",
			"после MaxDeliver JetStream перестаёт доставлять и оставляет сообщение в потоке (advisory, без очереди недоставленных); модель отправляет его в очередь недоставленных"),
		"profile.kafka.gaps": msg("Kafka redelivers from the last committed offset, so every later message of the partition comes again too (the batch presets show it); the idempotent producer's deduplication of its own retries is not modelled",
			"Kafka доставляет заново с последнего закоммиченного смещения, то есть приходят снова и все последующие сообщения раздела (это показывают сценарии с пачками); дедупликация собственных повторов идемпотентного продюсера не моделируется"),
	})
}

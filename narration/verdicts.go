package narration

// The verdicts' words (verdict.NAME, what it means: verdict.NAME.explain,
// NAME as sim.Verdict spells it). What each broker profile's model leaves
// out is script.gaps.NAME (script.go).
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
	})
}

package narration

// The practice's own words (package practice) beside its goal errors
// (files.go): how to answer a predict exercise, and the forms of an
// amount of money a person may type.
func init() {
	register(map[string]message{
		"practice.predict-hint": msg("Predict the balance after the run settles: when the script ends, the lab brings the gateway back up, "+
			"redelivers unacked messages and drains the queue. Give it in major units, e.g. 200.00 "+
			"(the script writes amounts in minor units: amount=10000 is 100.00). "+
			"For two accounts, give the total. Then pick the verdict.",
			"Предскажите итоговый баланс: когда сценарий закончится, лаборатория доводит прогон до конца — поднимает шлюз, "+
				"повторно доставляет неподтверждённые сообщения и разбирает очередь. Укажите баланс в основных единицах, "+
				"например 200.00 (в сценарии суммы записаны в минимальных единицах: amount=10000 — это 100.00). "+
				"Если счетов два, укажите сумму по ним. Затем выберите вердикт."),
		"practice.money-forms": msg("in major units, e.g. 200, 200.00, 200,00, 1 234.50, 200 ₽ or $200",
			"в основных единицах, например 200, 200.00, 200,00, 1 234.50, 200 ₽ или $200"),
	})
}

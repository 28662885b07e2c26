package sim

// The words for verdicts, in the two languages of the lab: the one place
// they are written. The web's badges, the lessons' claim boxes and
// practice's verdict choices all read them from here.

// Verdicts lists every verdict, in the order a form offers them.
func Verdicts() []Verdict {
	return []Verdict{OK, Duplicate, Lost, Poison, SilentConflict, WrongStatus}
}

// MessageVerdicts are the verdicts a run of message handlers can reach:
// all but the API's wrong-status.
func MessageVerdicts() []Verdict {
	return []Verdict{OK, Duplicate, Lost, Poison, SilentConflict}
}

type verdictWords struct{ word, explain [2]string } // [English, Russian]

var verdictText = map[Verdict]verdictWords{
	OK:             {[2]string{"ok", "верно"}, [2]string{"credited exactly what was asked", "зачислено ровно то, что просили"}},
	Duplicate:      {[2]string{"duplicate", "дубль"}, [2]string{"credited too much", "зачислено больше, чем нужно"}},
	Lost:           {[2]string{"lost", "потеря"}, [2]string{"credited too little", "зачислено меньше, чем нужно"}},
	Poison:         {[2]string{"poison", "зацикливание"}, [2]string{"a handled message looped into the DLQ", "уже обработанное сообщение ходит по кругу, пока не попадёт в DLQ"}},
	SilentConflict: {[2]string{"silent conflict", "тихий конфликт"}, [2]string{"another payload under the same key was acked as a repeat, neither applied nor quarantined", "другое содержимое под тем же ключом подтверждено как повтор: не применено и не отправлено в карантин"}},
	WrongStatus:    {[2]string{"wrong status", "неверный статус"}, [2]string{"the API answered a request with another status than the one due", "API ответил на запрос не тем статусом, который положен"}},
}

func langIndex(lang string) int {
	if lang == "ru" {
		return 1
	}
	return 0
}

// Word is the verdict's name in lang ("en" or "ru"; anything else reads
// as English), in lower case: "silent conflict", «тихий конфликт». An
// unknown verdict is its own string.
func (v Verdict) Word(lang string) string {
	if w, ok := verdictText[v]; ok {
		return w.word[langIndex(lang)]
	}
	return string(v)
}

// Explain says what the verdict means, in lang: "credited too much".
func (v Verdict) Explain(lang string) string {
	if w, ok := verdictText[v]; ok {
		return w.explain[langIndex(lang)]
	}
	return string(v)
}

package labview

import "github.com/idempotency-lab/lab/web/page"

// challengesCatalog holds the challenges' list and the goal banner in the
// lab. The challenges' own titles, goals and hints are in practice.
func challengesCatalog() page.Catalog {
	return page.Catalog{
		"pr.mode.challenges.text": {"Make a handler fail on purpose, in a few steps: the engine judges.", "Заставьте обработчик ошибиться нарочно, за несколько шагов: судит движок."},
		"pr.mode.challenges.go":   {"Open the challenges", "Открыть задания"},
		"ch.title":                {"Challenges", "Задания"},
		"ch.intro":                {"Each challenge asks you to make a handler fail in one particular way, in a few steps. Build the steps with the lab's controls or type a script; the engine runs it and judges. Verdicts are as if the run were settled now: the lab delivers whatever is left in the queue, as a real broker eventually would.", "Каждое задание просит заставить обработчик ошибиться определённым образом за несколько шагов. Соберите шаги кнопками лаборатории или напишите сценарий; движок выполнит его и рассудит. Вердикты — как если бы прогон завершили сейчас: лаборатория доставляет всё, что осталось в очереди, как рано или поздно сделал бы настоящий брокер."},
		"ch.progress":             {"%d of %d solved", "Решено %d из %d"},
		"ch.start":                {"Start", "Начать"},
		"ch.again":                {"Start again", "Начать заново"},
		"ch.solution":             {"Your solution (%d steps)", "Ваше решение (шагов: %d)"},
		"ch.solvedBadge":          {"Solved", "Решено"},
		"ch.notyet":               {"Not solved yet", "Пока не решено"},
		"ch.limit":                {"at most %d steps", "не больше %d шагов"},
		"ch.handler":              {"Handler", "Обработчик"},
		"ch.lesson":               {"Lesson", "Урок"},
		"ch.justsaved":            {"Saved to your progress: %s.", "Сохранено в вашем прогрессе: %s."},
		"ch.nostore":              {"This lab keeps no progress (it runs without a progress file), so solved challenges are not saved.", "Эта лаборатория не хранит прогресс (она запущена без файла прогресса), поэтому решённые задания не сохраняются."},
		"ch.banner":               {"Challenge %d of %d", "Задание %d из %d"},
		"ch.hint":                 {"Hint", "Подсказка"},
		"ch.open":                 {"Steps: %d of at most %d. Not there yet.", "Шагов: %d, можно не больше %d. Цель пока не достигнута."},
		"ch.solved":               {"Solved in %d steps (at most %d). Solutions built with the lab's controls are saved to your progress.", "Решено за %d шагов (можно не больше %d). Решения, собранные кнопками лаборатории, сохраняются в вашем прогрессе."},
		"ch.solved.nostore":       {"Solved in %d steps (at most %d). This lab keeps no progress, so the solve is not saved.", "Решено за %d шагов (можно не больше %d). Эта лаборатория не хранит прогресс, поэтому решение не сохраняется."},
		"ch.toolong":              {"The goal is reached, but in %d steps; this challenge allows %d. Undo a step or start again.", "Цель достигнута, но за %d шагов, а можно не больше %d. Отмените шаг или начните заново."},
		"ch.crashed":              {"The goal is reached, but with a crash step: this challenge asks for it without crashing any worker.", "Цель достигнута, но с падением воркера, а это задание требует обойтись без падений."},
		"ch.forbidden":            {"The goal is reached, but with a step this challenge rules out (%s). Undo it or start again.", "Цель достигнута, но с шагом, который это задание запрещает (%s). Отмените его или начните заново."},
		"ch.save":                 {"Save to my progress", "Сохранить в прогресс"},
		"ch.saved":                {"Already in your progress (a solve in %d steps).", "Уже в вашем прогрессе (решение, шагов: %d)."},
		"ch.next":                 {"Next challenge", "Следующее задание"},
		"ch.all":                  {"All challenges", "Все задания"},
		"err.challenge":           {"There is no challenge %q. Valid challenges: %s.", "Задания %q нет. Есть такие: %s."},
		"ch.err.notsolved":        {"This script does not solve %s in at most %d steps, so it was not saved.", "Этот сценарий не решает задание %s за %d шагов или меньше, поэтому он не сохранён."},
		"ch.err.notsolved.title":  {"Not a solution", "Это не решение"},
	}
}

package course

import "github.com/idempotency-lab/lab/web/page"

// Catalog holds the words of the lessons pages and of the site's
// main navigation.
func Catalog() page.Catalog {
	return page.Catalog{
		// The site's sections, in the header of every page.

		// The table of contents and the search.
		"les.heading":      {"Lessons", "Уроки"},
		"les.code":         {"Code example %d", "Пример кода %d"},
		"les.intro":        {"%d short lessons on handlers that survive duplicates. Every claim names a scenario you can run in the lab, and the course's tests check that the engine agrees.", "Короткие уроки об обработчиках, которые переживают дубли (всего уроков: %d). Каждое утверждение опирается на сценарий, который можно запустить в лаборатории, а тесты курса проверяют, что движок с ним согласен."},
		"les.list":         {"All lessons", "Все уроки"},
		"les.minutes":      {"%d min read", "%d мин чтения"},
		"les.progress":     {"%d%% of the questions answered", "Отвечено вопросов: %d%%"},
		"les.search.label": {"Search titles and headings", "Поиск по заголовкам"},
		"les.search.hint":  {"For example: UNIQUE, TTL, poison, inbox.", "Например: UNIQUE, TTL, poison, inbox."},
		"les.search.go":    {"Search", "Найти"},
		"les.search.title": {"“%s”", "«%s»"},
		"les.search.none":  {"No title or heading contains “%s”. Here are all the lessons.", "Ни в одном заголовке нет «%s». Вот все уроки."},
		"les.search.one":   {"One title or heading matches “%s”.", "Запросу «%s» отвечает один заголовок."},
		"les.search.many":  {"%d titles and headings in %d lessons match “%s”.", "Запросу «%[3]s» отвечают заголовки: %[1]d, уроков: %[2]d."},
		"les.search.clear": {"Show all lessons", "Показать все уроки"},
		"les.search.in":    {"Whole lesson", "Весь урок"},
		"les.err.query":    {"A search may be at most %[2]d characters long; this one has %[1]d.", "Поисковый запрос может быть не длиннее %[2]d символов, а в этом %[1]d."},
		"les.err.utf8":     {"The search is not valid UTF-8 text.", "Поисковый запрос — не текст в UTF-8."},

		// One lesson.
		"les.position": {"Lesson %d of %d", "Урок %d из %d"},
		"les.toc":      {"On this page", "В этом уроке"},
		"les.pager":    {"Previous and next lesson", "Предыдущий и следующий урок"},
		"les.prev":     {"Previous", "Назад"},
		"les.next":     {"Next", "Дальше"},
		"les.crumbs":   {"You are here", "Вы здесь"},
		"les.practice": {"Interview questions on this topic", "Вопросы для собеседования по теме"},

		// Missing lessons and a course that does not load.
		"les.missing.title": {"There is no such lesson", "Такого урока нет"},
		"les.missing.msg":   {"No lesson is called “%s”. These are the lessons there are:", "Урока «%s» нет. Есть такие уроки:"},
		"les.broken.title":  {"The course does not load", "Курс не загружается"},
		"les.broken.msg":    {"The lesson files have problems. Fix them and reload this page (dev mode reads the files on every request).", "В файлах уроков есть ошибки. Исправьте их и перезагрузите страницу (в режиме разработки файлы читаются при каждом запросе)."},
	}
}

package page

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/sim"
)

// shellCatalog holds the words of the shell itself: the site's name, its
// sections and descriptions, the header's switches, and the error pages'
// headings and generic messages, and how verdicts read (verdicts.go). Each part of the lab keeps its own words
// next to its code and hands them to NewCatalog.
func shellCatalog() Catalog {
	c := Catalog{
		"why.ok":                {"credits %s, exactly what was asked", "зачислит %s — ровно столько, сколько просили"},
		"why.cancel":            {"the total of %s looks right, but one operation is credited twice and another not at all: the errors cancel out", "итог %s выглядит верным, но одна операция зачислена дважды, а другая не зачислена вовсе: ошибки взаимно гасятся"},
		"why.duplicate":         {"credits %s: %s more than the %s asked", "зачислит %s: на %s больше, чем %s по запросу"},
		"why.lost":              {"credits %s: %s of the %s asked never arrives", "зачислит %s: %s из %s по запросу не дойдут"},
		"why.poison":            {"a message that was already applied fails again and again until the dead-letter queue", "уже применённое сообщение падает снова и снова, пока не попадёт в очередь недоставленных сообщений (DLQ)"},
		"why.silent-conflict":   {"a changed amount was acked as a success instead of being quarantined", "изменённую сумму подтвердили как успех вместо карантина"},
		"why.silent-conflict.n": {"%d changed amounts were acked as successes instead of being quarantined", "изменённых сумм, подтверждённых как успех вместо карантина: %d"},
		"pr.err.save":           {"The lab's progress database refused to save it. This is a problem on the lab's side, not with what you did, and what was saved before is still there. Try again in a minute; if it keeps happening, tell whoever runs the lab: the server log says why.", "База прогресса лаборатории отказалась его записать. Это проблема на стороне лаборатории, а не в ваших действиях; сохранённое раньше никуда не делось. Попробуйте через минуту, а если ошибка повторяется, скажите тому, кто запустил лабораторию: причина записана в журнале сервера."},
		"app.name":              {"Idempotency lab", "Лаборатория идемпотентности"},
		"app.tagline":           {"Break message handlers with crashes, retries and races — and watch which ones survive.", "Ломайте обработчики сообщений падениями, повторами и гонками — и смотрите, какие выживают."},
		"desc.site":             {"The idempotency lab: watch an at-least-once broker deliver duplicates to real message handlers, and see which defences hold.", "Лаборатория идемпотентности: брокер at-least-once доставляет дубли настоящим обработчикам сообщений, а вы смотрите, какая защита выдерживает."},
		"desc/challenges":       {"Goals to reach in the lab: make a handler charge twice, lose a payment or fill the DLQ in a few steps, judged by the engine.", "Цели в лаборатории: заставить обработчик списать дважды, потерять платёж или наполнить DLQ за несколько шагов; судит движок."},
		"desc/lab":              {"Playground: step a simulated at-least-once broker through crashes and redeliveries and watch naive and idempotent handlers side by side.", "Песочница: проведите симулированный брокер at-least-once через падения и повторные доставки и сравните наивные и идемпотентные обработчики."},
		"desc/lessons":          {"Lessons: short lessons on message handlers that survive duplicates, each claim tied to a scenario you can run.", "Уроки: короткие уроки об обработчиках сообщений, которые переживают дубли, каждое утверждение со сценарием для запуска."},
		"desc/matrix":           {"Verdicts: every scenario against every handler in one table, each cell the settled balance against the expected one.", "Вердикты: все сценарии против всех обработчиков в одной таблице, в каждой клетке итоговый баланс против ожидаемого."},
		"desc/practice":         {"Practice: interview questions and predict-the-outcome exercises on idempotent handlers, graded by running the engine.", "Практика: вопросы для собеседования и задачи «предскажи исход» об идемпотентных обработчиках, проверяемые запуском движка."},
		"desc/present":          {"Instructor mode: present the lab from the keyboard and run a live classroom that follows and votes.", "Режим преподавателя: показ лаборатории с клавиатуры и живой класс, который следует за вами и голосует."},
		"err.back":              {"Back to the lab", "Вернуться в лабораторию"},
		"err.busy":              {"Every replay slot is taken right now. Wait a couple of seconds and reload the page: nothing is lost, the address keeps the whole state.", "Сейчас заняты все слоты прогона. Подождите пару секунд и обновите страницу: ничего не потеряно, адрес хранит всё состояние."},
		"err.crossorigin":       {"This form was sent by a page of another site, so the lab did nothing. If you meant to send it, open the lab itself and send it from there.", "Эту форму отправила страница другого сайта, поэтому лаборатория ничего не сделала. Если вы хотели её отправить, откройте саму лабораторию и отправьте оттуда."},
		"err.crosssite":         {"This address runs a handler file in the lab's sandbox, and a page of another site opened it, so the lab ran nothing. If you meant to run it, paste the address into the address bar yourself, or follow the link from the lab's own pages.", "Этот адрес запускает файл обработчика в песочнице лаборатории, а открыла его страница другого сайта, поэтому лаборатория ничего не запустила. Если вы хотели его запустить, вставьте адрес в адресную строку сами или перейдите по ссылке со страниц самой лаборатории."},
		"err.empty":             {"Start an empty lab", "Открыть пустую лабораторию"},
		"err.fix":               {"Fix the script and run it again", "Исправьте сценарий и запустите снова"},
		"err.fixcode":           {"Fix the handler and run it again", "Исправьте обработчик и запустите снова"},
		"err.codeline":          {"(the problem is on line %d)", "(ошибка в строке %d)"},
		"code.run":              {"Run it", "Запустить"},
		"err.form":              {"The form could not be read.", "Не удалось прочитать форму."},
		"err.form.title":        {"This request could not be read", "Не удалось разобрать запрос"},
		"err.internal":          {"The error has been logged. Reloading will not help; going back to a smaller script might.", "Ошибка записана в журнал. Перезагрузка не поможет; может помочь сценарий покороче."},
		"err.method":            {"%s is not allowed here.", "Метод %s здесь не разрешён."},
		"err.notfound":          {"Nothing lives at %s.", "По адресу %s ничего нет."},
		"err.throttle":          {"Your address has sent this too often in a short time. Wait %d s and try again.", "С вашего адреса это отправляли слишком часто. Подождите %d с и попробуйте снова."},
		"err.title.400":         {"This request could not be read", "Не удалось разобрать запрос"},
		"err.title.403":         {"This request was refused", "Запрос отклонён"},
		"err.title.404":         {"There is no such page", "Такой страницы нет"},
		"err.title.405":         {"This address does not accept that method", "Этот адрес не принимает такой метод"},
		"err.title.413":         {"The request is too large", "Запрос слишком большой"},
		"err.title.422":         {"This script asks for too much work", "Этот сценарий требует слишком много работы"},
		"err.title.429":         {"Too many requests: please wait", "Слишком много запросов: подождите"},
		"err.title.500":         {"Something broke inside the lab", "Внутри лаборатории что-то сломалось"},
		"err.title.503":         {"The lab is busy", "Лаборатория занята"},
		"err.title.invalid":     {"Something in the request is not valid", "В запросе есть неверное значение"},
		"err.title.script":      {"The script has an error", "В сценарии ошибка"},
		"err.toolarge":          {"A form may carry at most %d KiB.", "Размер формы — не больше %d КиБ."},
		"nav.challenges":        {"Challenges", "Задания"},
		"nav.check":             {"Checker", "Проверка"},
		"nav.cost":              {"Cost", "Цена"},
		"nav.lab":               {"Lab", "Лаборатория"},
		"nav.lang":              {"Language", "Язык"},
		"nav.lessons":           {"Lessons", "Уроки"},
		"nav.matrix":            {"Verdicts", "Вердикты"},
		"nav.practice":          {"Practice", "Практика"},
		"nav.present":           {"Present", "Презентация"},
		"nav.sections":          {"Sections", "Разделы"},
		"nav.skip":              {"Skip to the content", "Перейти к содержимому"},
		"nav.theme.auto":        {"Theme: auto", "Тема: авто"},
		"nav.theme.dark":        {"Theme: dark", "Тема: тёмная"},
		"nav.tryapi":            {"API", "API"},
		"nav.theme.light":       {"Theme: light", "Тема: светлая"},
		"script.run":            {"Run this script", "Запустить сценарий"},
	}
	// A verdict's badge is sim's word for it, in capitals.
	for _, v := range sim.Verdicts() {
		c["v."+string(v)] = [2]string{strings.ToUpper(v.Word("en")), strings.ToUpper(v.Word("ru"))}
	}
	return c
}

// NewCatalog is the shell's words and every part's, in one table (Join).
// The server builds it once, at start, and a key two of them define stops
// the start: one key, one wording.
func NewCatalog(parts ...Catalog) (Catalog, error) {
	return Join(append([]Catalog{shellCatalog()}, parts...)...)
}

// MustCatalog is NewCatalog for a part's tests, which give it their own
// catalogue: a repeated key panics.
func MustCatalog(parts ...Catalog) Catalog {
	c, err := NewCatalog(parts...)
	if err != nil {
		panic(err)
	}
	return c
}

// Join is the catalogues in one table. A key that more than one of them
// defines is an error naming every such key: which wording a page shows
// must never depend on the order the parts are given in.
func Join(parts ...Catalog) (Catalog, error) {
	c := Catalog{}
	var repeated []string
	for _, p := range parts {
		for k, v := range p {
			if _, ok := c[k]; ok {
				repeated = append(repeated, k)
			}
			c[k] = v
		}
	}
	if len(repeated) > 0 {
		slices.Sort(repeated)
		return nil, fmt.Errorf("the catalogue defines %s more than once", strings.Join(slices.Compact(repeated), ", "))
	}
	return c, nil
}

// MustJoin is Join for a part that composes its own catalogue from
// pieces: a repeated key panics, when the server starts and in the part's
// tests.
func MustJoin(parts ...Catalog) Catalog {
	c, err := Join(parts...)
	if err != nil {
		panic(err)
	}
	return c
}

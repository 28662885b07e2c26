package web

import (
	"errors"

	"fmt"
	"github.com/idempotency-lab/lab/sim"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// lang is a language the lab's pages speak.
type lang string

const (
	langEN lang = "en"
	langRU lang = "ru"
)

// langCookie remembers the reader's choice of language for a year.
const langCookie = "lab_lang"

// pickLang chooses the page's language: an explicit ?lang=, then the
// cookie a previous choice left, then the browser's Accept-Language, then
// English. It reports whether the choice came from ?lang= (and so should
// be remembered). An unknown ?lang= value is ignored, not an error: the
// page is still readable in the fallback language.
func pickLang(r *http.Request) (l lang, explicit bool) {
	if l, ok := parseLang(r.URL.Query().Get("lang")); ok {
		return l, true
	}
	if c, err := r.Cookie(langCookie); err == nil {
		if l, ok := parseLang(c.Value); ok {
			return l, false
		}
	}
	return acceptLang(r.Header.Get("Accept-Language")), false
}

func parseLang(s string) (lang, bool) {
	switch strings.ToLower(s) {
	case "en":
		return langEN, true
	case "ru":
		return langRU, true
	}
	return "", false
}

// acceptLang returns the supported language the browser prefers most, by
// the q-values of an Accept-Language header such as "ru-RU,ru;q=0.9,en;q=0.8".
func acceptLang(header string) lang {
	best, bestQ := langEN, -1.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		primary, _, _ := strings.Cut(tag, "-")
		l, ok := parseLang(primary)
		if ok && q > bestQ && q > 0 {
			best, bestQ = l, q
		}
	}
	return best
}

func langCookieFor(l lang) *http.Cookie {
	return &http.Cookie{Name: langCookie, Value: string(l), Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// catalog holds every string a reader sees, keyed by a short name, in
// English and in Russian.
type catalog map[string][2]string

// text is the catalog in one language: what templates call to write words.
type text struct {
	lang lang
	c    catalog
}

// Has reports whether the catalog has key.
func (t text) Has(key string) bool {
	_, ok := t.c[key]
	return ok
}

// S returns the string for key. A missing key shows as ⟦key⟧, which the
// tests look for on every page.
func (t text) S(key string) string {
	v, ok := t.c[key]
	if !ok {
		return "⟦" + key + "⟧"
	}
	if t.lang == langRU {
		return v[1]
	}
	return v[0]
}

// F formats the string for key with args, as fmt.Sprintf does. An
// argument already written in both languages (bilingual) is given in the
// page's language.
func (t text) F(key string, args ...any) string {
	copied := false
	for i, a := range args {
		if b, ok := a.(bilingual); ok {
			if !copied {
				args, copied = append([]any(nil), args...), true
			}
			args[i] = b.en
			if t.lang == langRU {
				args[i] = b.ru
			}
		}
	}
	return fmt.Sprintf(t.S(key), args...)
}

// bilingual is a message that comes with its own translation, such as the
// script parser's.
type bilingual struct{ en, ru string }

// parseMessage is the parser's message in both languages; withLine keeps
// the line number.
func parseMessage(err error, withLine bool) any {
	var se *sim.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	if withLine {
		return bilingual{se.In("en"), se.In("ru")}
	}
	return bilingual{se.Message("en"), se.Message("ru")}
}

// Lang is the page's language code, for <html lang>.
func (t text) Lang() string { return string(t.lang) }

// money writes an amount of minor units as major units with two decimals,
// grouping thousands with a narrow no-break space: 123456789 is
// "1 234 567.89" in both languages.
func money(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "−", -minor
	}
	major := strconv.FormatInt(minor/100, 10)
	var b strings.Builder
	for i, r := range major {
		if i > 0 && (len(major)-i)%3 == 0 {
			b.WriteRune('\u202f')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s%s.%02d", sign, b.String(), minor%100)
}

// duration writes a simulated duration compactly: 1h30m, 2d, 90s.
func duration(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// newCatalog builds the table of the lab's words. It is built once, when
// the server starts, and only read afterwards.
func newCatalog() catalog {
	c := catalog{
		// The page around the lab.
		"app.name":        {"Idempotency lab", "Лаборатория идемпотентности"},
		"desc.site":       {"The idempotency lab: watch an at-least-once broker deliver duplicates to real message handlers, and see which defences hold.", "Лаборатория идемпотентности: брокер at-least-once доставляет дубли настоящим обработчикам сообщений, а вы смотрите, какая защита выдерживает."},
		"desc/lab":        {"Playground: step a simulated at-least-once broker through crashes and redeliveries and watch naive and idempotent handlers side by side.", "Песочница: проведите симулированный брокер at-least-once через падения и повторные доставки и сравните наивные и идемпотентные обработчики."},
		"desc/matrix":     {"Verdicts: every scenario against every handler in one table, each cell the settled balance against the expected one.", "Вердикты: все сценарии против всех обработчиков в одной таблице, в каждой клетке итоговый баланс против ожидаемого."},
		"desc/lessons":    {"Lessons: eight short lessons on message handlers that survive duplicates, each claim tied to a scenario you can run.", "Уроки: восемь коротких уроков об обработчиках сообщений, которые переживают дубли, каждое утверждение со сценарием для запуска."},
		"desc/practice":   {"Practice: interview questions and predict-the-outcome exercises on idempotent handlers, graded by running the engine.", "Практика: вопросы для собеседования и задачи «предскажи исход» об идемпотентных обработчиках, проверяемые запуском движка."},
		"desc/present":    {"Instructor mode: present the lab from the keyboard and run a live classroom that follows and votes.", "Режим преподавателя: показ лаборатории с клавиатуры и живой класс, который следует за вами и голосует."},
		"app.tagline":     {"Break message handlers with crashes, retries and races — and watch which ones survive.", "Ломайте обработчики сообщений падениями, повторами и гонками — и смотрите, какие выживают."},
		"nav.skip":        {"Skip to the content", "Перейти к содержимому"},
		"nav.lang":        {"Language", "Язык"},
		"nav.theme.auto":  {"Theme: auto", "Тема: авто"},
		"nav.theme.light": {"Theme: light", "Тема: светлая"},
		"nav.theme.dark":  {"Theme: dark", "Тема: тёмная"},
		"nav.keys":        {"Keys: ← → move between steps", "Клавиши: ← → переход между шагами"},

		// Errors.
		"err.title.400":  {"This request could not be read", "Не удалось разобрать запрос"},
		"err.title.404":  {"There is no such page", "Такой страницы нет"},
		"err.title.405":  {"This address does not accept that method", "Этот адрес не принимает такой метод"},
		"err.title.413":  {"The request is too large", "Запрос слишком большой"},
		"err.title.500":  {"Something broke inside the lab", "Внутри лаборатории что-то сломалось"},
		"err.title.422":  {"This script asks for too much work", "Этот сценарий требует слишком много работы"},
		"err.title.503":  {"The lab is busy", "Лаборатория занята"},
		"err.budget":     {"The lab stopped replaying it: %s", "Лаборатория остановила прогон: %s"},
		"err.busy":       {"Every replay slot is taken right now. Wait a couple of seconds and reload the page: nothing is lost, the address keeps the whole state.", "Сейчас заняты все слоты прогона. Подождите пару секунд и обновите страницу: ничего не потеряно, адрес хранит всё состояние."},
		"err.canonical":  {"The script is %d bytes when written out in its standard form (the form links and rooms carry); the limit is %d bytes. Shorten it: remove steps or narration.", "В стандартной записи (её несут ссылки и комнаты) сценарий занимает %d байт, а можно не больше %d. Сократите его: уберите шаги или пояснения."},
		"err.back":       {"Back to the lab", "Вернуться в лабораторию"},
		"err.empty":      {"Start an empty lab", "Открыть пустую лабораторию"},
		"err.fix":        {"Fix the script and run it again", "Исправьте сценарий и запустите снова"},
		"err.notfound":   {"Nothing lives at %s.", "По адресу %s ничего нет."},
		"err.method":     {"%s is not allowed here.", "Метод %s здесь не разрешён."},
		"err.internal":   {"The error has been logged. Reloading will not help; going back to a smaller script might.", "Ошибка записана в журнал. Перезагрузка не поможет; может помочь сценарий покороче."},
		"err.toolarge":   {"A form may carry at most %d KiB.", "Размер формы — не больше %d КиБ."},
		"err.form":       {"The form could not be read.", "Не удалось прочитать форму."},
		"err.sources":    {"Give only one of preset=, s= and script=.", "Укажите что-то одно: preset=, s= или script=."},
		"err.preset":     {"There is no scenario %q. Valid scenarios: %s.", "Сценария %q нет. Есть такие: %s."},
		"err.handler":    {"There is no handler %q. Valid handlers: %s (or core, all).", "Обработчика %q нет. Есть такие: %s (а также core и all)."},
		"err.nohandlers": {"Choose at least one handler.", "Выберите хотя бы один обработчик."},
		"err.step":       {"step=%s is not a step of this script: give a whole number from 0 to %d.", "step=%s — не шаг этого сценария: укажите целое число от 0 до %d."},
		"pl.long":        {"The permalink could not be read: it is %d characters long, the limit is %d.", "Не удалось прочитать постоянную ссылку: в ней %d символов, а можно не больше %d."},
		"pl.version":     {"The permalink could not be read: it should start with %q, the format version. Was it cut short or changed?", "Не удалось прочитать постоянную ссылку: она должна начинаться с %q, версии формата. Может быть, её обрезали или изменили?"},
		"pl.base64":      {"The permalink could not be read: it is not base64url text. Was it cut short or changed?", "Не удалось прочитать постоянную ссылку: это не текст в base64url. Может быть, её обрезали или изменили?"},
		"pl.inflate":     {"The permalink could not be read: it does not decompress. Was it cut short?", "Не удалось прочитать постоянную ссылку: она не распаковывается. Может быть, её обрезали?"},
		"pl.big":         {"The permalink could not be read: the script inside is longer than the limit of %d bytes.", "Не удалось прочитать постоянную ссылку: сценарий внутри длиннее предела в %d байт."},
		"err.script":     {"The script has an error: %s", "В сценарии ошибка: %s"},
		"err.newstep":    {"That step cannot be added: %s", "Этот шаг добавить нельзя: %s"},
		"err.nothingready": {"That step cannot be added: after step %d nothing is ready to deliver, the queue is empty. Publish a message first, or redeliver one in flight.",
			"Этот шаг добавить нельзя: после шага %d доставлять нечего, очередь пуста. Сначала опубликуйте сообщение или верните в очередь то, что в обработке."},
		"err.nothinginflight": {"That step cannot be added: after step %d nothing is in flight, so there is nothing to redeliver.",
			"Этот шаг добавить нельзя: после шага %d ни одно сообщение не в обработке, возвращать в очередь нечего."},
		"ctl.noready":     {"Nothing is ready to deliver at this step: the queue is empty.", "На этом шаге доставлять нечего: очередь пуста."},
		"ctl.noinflight":  {"Nothing is in flight at this step: there is nothing to redeliver.", "На этом шаге ни одно сообщение не в обработке: возвращать в очередь нечего."},
		"do.deliver.none": {"A worker asks for a message, but nothing is ready to deliver: the queue is empty and nothing changes.", "Воркер просит сообщение, но доставлять нечего: очередь пуста, ничего не меняется."},
		"err.emptydlq": {"That step cannot be added: after step %d every DLQ is empty, so there is nothing to replay.",
			"Этот шаг добавить нельзя: после шага %d все DLQ пусты, переотправлять нечего."},
		"ctl.nodlq":         {"The DLQ is empty at this step: there is nothing to replay.", "На этом шаге DLQ пуста: переотправлять нечего."},
		"do.drain.none":     {"Workers ask for messages, but nothing is ready to deliver: nothing changes.", "Воркеры просят сообщения, но доставлять нечего: ничего не меняется."},
		"do.dlq.none":       {"The DLQ is empty, so there is nothing to replay: nothing changes.", "DLQ пуста, переотправлять нечего: ничего не меняется."},
		"do.redeliver.none": {"Nothing is in flight, so there is nothing to redeliver: nothing changes.", "Ни одно сообщение не в обработке, возвращать в очередь нечего: ничего не меняется."},
		"scn.startRule":     {"A preset opens at step 0: step through its story with Next.", "Готовый сценарий открывается на шаге 0: проходите его историю кнопкой «Дальше»."},
		"err.verb":          {"There is no step %q. Valid steps: %s.", "Шага %q нет. Есть такие: %s."},
		"err.field":         {"%s must be one word, without spaces.", "%s — одно слово, без пробелов."},
		"err.target":        {"Choose a published operation for %s.", "Выберите опубликованную операцию для %s."},
		// Refused requests (csrf.go, throttle.go).
		"err.title.403":     {"This request was refused", "Запрос отклонён"},
		"err.money":         {"%q is not an amount: a balance is in major units, e.g. 200.00; 200, 200,00, 1 234.50, 200 ₽, $200 and 200 RUB are read too (no minus, at most two decimals).", "%q — не сумма: баланс указывают в основных единицах, например 200.00; подойдут и 200, 200,00, 1 234.50, 200 ₽, 200 руб. и $200 (без минуса, не больше двух знаков после запятой)."},
		"err.title.invalid": {"Something in the request is not valid", "В запросе есть неверное значение"},
		"err.title.script":  {"The script has an error", "В сценарии ошибка"},
		"err.form.title":    {"This request could not be read", "Не удалось разобрать запрос"},
		"err.title.429":     {"Too many requests: please wait", "Слишком много запросов: подождите"},
		"err.crossorigin":   {"This form was sent by a page of another site, so the lab did nothing. If you meant to send it, open the lab itself and send it from there.", "Эту форму отправила страница другого сайта, поэтому лаборатория ничего не сделала. Если вы хотели её отправить, откройте саму лабораторию и отправьте оттуда."},
		"err.throttle":      {"Your address has sent this too often in a short time. Wait %d s and try again.", "С вашего адреса это отправляли слишком часто. Подождите %d с и попробуйте снова."},

		// The scenario bar.
		"scn.preset":        {"Preset scenario", "Готовый сценарий"},
		"scn.empty":         {"Empty: build your own", "Пустой: соберите свой"},
		"scn.load":          {"Load", "Загрузить"},
		"scn.custom":        {"Your own script", "Ваш сценарий"},
		"scn.untitled":      {"Your own scenario", "Ваш сценарий"},
		"hnd.heading":       {"Handlers", "Обработчики"},
		"hnd.choose":        {"Handlers to compare (%d of %d)", "Обработчики для сравнения (%d из %d)"},
		"hnd.core":          {"Core patterns", "Основные паттерны"},
		"hnd.anti":          {"Anti-patterns", "Антипаттерны"},
		"hnd.apply":         {"Compare these", "Сравнить выбранные"},
		"hnd.kind.core":     {"core pattern", "основной паттерн"},
		"hnd.kind.anti":     {"anti-pattern", "антипаттерн"},
		"hnd.variant":       {"Corrected variants", "Исправленные варианты"},
		"hnd.kind.variant":  {"corrected variant", "исправленный вариант"},
		"hnd.hint":          {"Pick any; the same steps drive every handler.", "Выбирайте любые: одни и те же шаги управляют всеми."},
		"guide.heading":     {"New here? Make a double charge in four clicks", "Впервые здесь? Двойное зачисление за четыре нажатия"},
		"guide.1":           {"Press “%s”: the producer sends top-up pay-1 for 100.00.", "Нажмите «%s»: продюсер отправляет пополнение pay-1 на 100.00."},
		"guide.2":           {"Press “%s”: a worker credits it, then dies before its ack.", "Нажмите «%s»: воркер зачисляет деньги и умирает до ack."},
		"guide.3":           {"Press “%s”: the broker never got the ack, so the message goes back to the queue.", "Нажмите «%s»: брокер так и не получил ack, и сообщение возвращается в очередь."},
		"guide.4":           {"Press “%s”: naive credits it a second time (DUPLICATE) while inbox recognises the repeat (OK).", "Нажмите «%s»: naive зачисляет ещё раз (ДУБЛЬ), а inbox узнаёт повтор (ВЕРНО)."},
		"guide.doneHeading": {"A double charge in four clicks", "Двойное зачисление за четыре нажатия"},
		"guide.done":        {"That is the everyday duplicate of at-least-once delivery. The cards below show naive at DUPLICATE and inbox at OK; step back with “Back” to see where it went wrong.", "Это самый обычный дубль доставки at-least-once. Карточки ниже: naive — ДУБЛЬ, inbox — ВЕРНО; вернитесь кнопкой «Назад», чтобы увидеть, где всё пошло не так."},
		"guide.or":          {"Or load the ready-made scenario, with a story for every step:", "Или загрузите готовый сценарий с пояснением к каждому шагу:"},
		"guide.tryPreset":   {"Crash before the ack", "Падение перед ack"},
		"guide.doneMark":    {"done", "сделано"},
		"guide.nextMark":    {"next", "дальше"},
		"step.heading":      {"Steps", "Шаги"},
		"step.of":           {"Step %d of %d", "Шаг %d из %d"},
		"step.zero":         {"Before the first step", "До первого шага"},
		"step.none":         {"No steps yet: add one under “Add a step”.", "Шагов пока нет: добавьте их в разделе «Добавить шаг»."},
		"step.prev":         {"Back", "Назад"},
		"step.next":         {"Next", "Дальше"},
		"step.first":        {"Start", "В начало"},
		"step.last":         {"End", "В конец"},
		"step.slider":       {"Show the state after step", "Показать состояние после шага"},
		"step.show":         {"Show", "Показать"},
		"step.list":         {"All steps", "Все шаги"},
		"step.start":        {"start", "начало"},
		"step.narr0":        {"Nothing has happened yet: every handler has an empty database and an empty queue.", "Пока ничего не произошло: у каждого обработчика пустая база и пустая очередь."},
		"step.truncate":     {"You are looking at step %d of %d: a new step replaces the %d after it.", "Вы смотрите на шаг %d из %d: новый шаг заменит %d после него."},
		"step.undo":         {"Undo the last step", "Отменить последний шаг"},
		"ctl.heading":       {"Add a step", "Добавить шаг"},
		"ctl.presetHint":    {"open to change this scenario: publish, deliver, crash, redeliver…", "раскройте, чтобы изменить сценарий: публикация, доставка, падение, повтор…"},
		"ctl.producer":      {"Producer", "Продюсер"},
		"ctl.publish":       {"Publish", "Опубликовать"},
		"ctl.op":            {"Operation id", "Идентификатор операции"},
		"ctl.amount":        {"Amount in cents", "Сумма в копейках"},
		"ctl.tenant":        {"Tenant", "Тенант"},
		"ctl.key":           {"Idempotency key", "Ключ идемпотентности"},
		"ctl.key.op":        {"the operation id", "идентификатор операции"},
		"ctl.key.v7":        {"UUIDv7 made once", "UUIDv7, созданный один раз"},
		"ctl.key.fresh":     {"new UUID each send (anti-pattern)", "новый UUID при каждой отправке (антипаттерн)"},
		"ctl.target":        {"Operation", "Операция"},
		"ctl.retry":         {"Producer retry", "Повтор продюсера"},
		"ctl.change":        {"Change payload", "Изменить сумму"},
		"ctl.newamount":     {"New amount in cents", "Новая сумма в копейках"},
		"ctl.ship":          {"Ship order", "Отгрузить заказ"},
		"ctl.nothing":       {"Publish something first.", "Сначала опубликуйте что-нибудь."},
		"ctl.worker":        {"Worker", "Воркер"},
		"ctl.deliver":       {"Deliver", "Доставить"},
		"ctl.crash.be":      {"Crash before effect", "Падение до эффекта"},
		"ctl.crash.ae":      {"Crash after effect", "Падение после эффекта"},
		"ctl.crash.ba":      {"Crash before ack", "Падение до ack"},
		"ctl.concurrent":    {"Two at once", "Два сразу"},
		"ctl.drain":         {"Drain the queue", "Разобрать очередь"},
		"ctl.broker":        {"Broker", "Брокер"},
		"ctl.redeliver":     {"Redeliver in-flight", "Вернуть необработанные"},
		"ctl.dlq":           {"Replay DLQ", "Переотправить из DLQ"},
		"ctl.world":         {"World", "Окружение"},
		"ctl.advance":       {"Advance clock", "Перевести часы"},
		"ctl.duration":      {"How long (90s, 15m, 2h, 3d)", "На сколько (90s, 15m, 2h, 3d)"},
		"ctl.gw.down":       {"Gateway down", "Шлюз упал"},
		"ctl.gw.up":         {"Gateway up", "Шлюз поднялся"},
		"ctl.gw.timeout":    {"Gateway times out", "Шлюз отвечает таймаутом"},
		"ctl.gw.dedupon":    {"Provider dedup on", "Дедупликация у провайдера"},
		"ctl.gw.dedupoff":   {"Provider dedup off", "Без дедупликации у провайдера"},
		"ctl.same":          {"Slow worker: same message twice", "Медленный воркер: одно сообщение дважды"},
		"script.heading":    {"Script", "Текст сценария"},
		"script.hint":       {"One step per line, the same words as the buttons. Edit and run it.", "По шагу на строку, теми же словами, что на кнопках. Правьте и запускайте."},
		"script.label":      {"Scenario script", "Текст сценария"},
		"script.run":        {"Run this script", "Запустить сценарий"},
		"link.heading":      {"Permalink", "Постоянная ссылка"},
		"link.hint":         {"The link holds the whole script: anyone who opens it sees exactly this.", "Ссылка содержит весь сценарий: кто её откроет, увидит ровно это."},
		"link.present":      {"Present this run on a projector", "Показать этот прогон на проекторе"},
		"link.copy":         {"Copy", "Копировать"},
		"link.copied":       {"Copied", "Скопировано"},
		"link.label":        {"Link to this exact state", "Ссылка на это состояние"},
		"card.balance":      {"Balance", "Баланс"},
		"card.charged":      {"Charged via the gateway", "Списано через шлюз"},
		"card.expected":     {"expected %s", "ожидается %s"},
		"card.over":         {"%s too much", "лишние %s"},
		"card.short":        {"%s not credited yet", "%s ещё не зачислено"},
		"card.even":         {"as expected", "как ожидалось"},
		"card.settles":      {"If settled now", "Если довести прогон до конца"},
		"card.settlesHint":  {"What this handler ends with if the gateway comes back, in-flight messages are redelivered and the queue is drained.", "Чем закончит этот обработчик, если шлюз поднимется, необработанные сообщения вернутся в очередь и очередь разберут."},
		"card.broker":       {"Broker", "Брокер"},
		"card.state":        {"State", "Состояние"},
		"card.timeline":     {"Timeline", "Хронология"},
		"card.source":       {"Go source", "Код на Go"},
		"card.noTimeline":   {"The timeline appears once a step has run.", "Хронология появится после первого шага."},
		"tl.heading":        {"Timelines", "Хронология"},
		"tl.hint":           {"What each handler did, message by message: the SQL and Redis commands that ran, the crash where it happened, and last what settling would do. Open one or several.", "Что делал каждый обработчик, сообщение за сообщением: выполненные SQL и команды Redis, место падения и в конце — чем он закончится, если довести прогон до конца. Раскройте одну или несколько."},
		"tl.window":         {"Showing steps %d to %d; move the slider back to see earlier ones.", "Показаны шаги с %d по %d; сдвиньте ползунок назад, чтобы увидеть более ранние."},
		"tl.more":           {"… and %d more events in this step, not drawn (lab run --json lists them all)", "… и ещё %d событий этого шага не показаны (все они есть в lab run --json)"},
		"tl.settle":         {"If it settles now: gateway up, in-flight messages redelivered, queue drained", "Если довести прогон до конца: шлюз поднят, необработанные сообщения возвращены, очередь разобрана"},
		"q.ready":           {"Ready", "Готовы"},
		"q.inflight":        {"In flight", "В работе"},
		"q.acked":           {"Acked", "Подтверждены"},
		"q.dlq":             {"DLQ", "DLQ"},
		"q.ready.long":      {"Ready: waiting for a worker", "Готовы: ждут воркера"},
		"q.inflight.long":   {"In flight: taken by a worker, not acked yet", "В работе: взяты воркером, ack ещё не пришёл"},
		"q.acked.long":      {"Acked: done, the broker forgets them", "Подтверждены: готово, брокер о них забыл"},
		"q.dlq.long":        {"Dead-letter queue: gave up after too many deliveries", "Очередь недоставленных сообщений (DLQ): исчерпан лимит доставок"},
		"q.empty":           {"empty", "пусто"},
		"msg.key":           {"key", "ключ"},
		"msg.deliveries":    {"deliveries", "доставок"},
		"msg.redelivered":   {"redelivered", "повторно"},
		"msg.changed":       {"changed amount", "сумма изменена"},
		"st.clock":          {"Clock", "Часы"},
		"st.gateway":        {"Gateway", "Шлюз"},
		"st.gw.up":          {"up", "работает"},
		"st.gw.down":        {"down", "недоступен"},
		"st.rows":           {"%d rows", "строк: %d"},
		"st.row1":           {"1 row", "1 строка"},
		"st.norows":         {"no rows", "нет строк"},
		"st.redis":          {"Redis keys", "Ключи Redis"},
		"st.noredis":        {"no keys", "нет ключей"},
		"st.nottl":          {"no expiry", "без срока"},
		"st.ttl":            {"TTL %s", "TTL %s"},
		"st.calls":          {"Gateway calls", "Вызовы шлюза"},
		"st.charged":        {"charged", "списано"},
		"st.region.table":   {"%s: table %s", "%s: таблица %s"},
		"st.region.redis":   {"%s: Redis keys", "%s: ключи Redis"},
		"st.region.calls":   {"%s: gateway calls", "%s: вызовы шлюза"},
		"st.gw.timeout":     {"timing out: charges, answers lost", "таймауты: списывает, ответ теряется"},
		"st.gw.dedup":       {"deduplicates by reference", "дедупликация по референсу"},
		"st.out.dedup":      {"duplicate reference: nothing charged", "повтор референса: не списано"},
		"st.out.refused":    {"refused (503): nothing charged", "отказ (503): не списано"},
		"st.out.lost":       {"never arrived: nothing charged", "не дошёл: не списано"},
		"st.out.timeout":    {"the answer was lost", "ответ потерян"},
		"st.failed":         {"failed", "ошибка"},
		"src.before":        {"crash point: before the effect", "точка падения: до эффекта"},
		"src.after":         {"crash point: after the effect", "точка падения: после эффекта"},
		"src.yield":         {"race window: another worker may run here", "окно гонки: здесь может вклиниться другой воркер"},
		"src.crashed":       {"crashed here at step %d", "упал здесь на шаге %d"},
		"more.msgs":         {"… and %d older", "… и ещё %d раньше"},
		"more.rows":         {"… %d older rows not shown", "… ещё %d строк выше не показаны"},
		"src.crashedAck":    {"At step %d the worker died before its ack, after this function had returned.", "На шаге %d воркер умер до ack, когда эта функция уже вернула результат."},
		"src.lines":         {"Lines %d–%d", "Строки %d–%d"},
		"src.region":        {"%s: source, %s", "%s: исходный код, %s"},
		"src.region.lines":  {"%s: source, lines %d–%d", "%s: исходный код, строки %d–%d"},
		"src.legend":        {"Marked lines are where the lab can kill the worker or let a second one in. A crash before the ack happens in the worker, after this function returns.", "Отмеченные строки — места, где лаборатория может убить воркер или впустить второй. Падение до ack происходит в воркере, после возврата из этой функции."},

		// Verdicts: the badges' words ("v.duplicate") are sim's, below.
		"why.ok":                {"credits %s, exactly what was asked", "зачислит %s — ровно столько, сколько просили"},
		"why.cancel":            {"the total of %s looks right, but one operation is credited twice and another not at all: the errors cancel out", "итог %s выглядит верным, но одна операция зачислена дважды, а другая не зачислена вовсе: ошибки взаимно гасятся"},
		"why.duplicate":         {"credits %s: %s more than the %s asked", "зачислит %s: на %s больше, чем %s по запросу"},
		"why.lost":              {"credits %s: %s of the %s asked never arrives", "зачислит %s: %s из %s по запросу не дойдут"},
		"why.poison":            {"a message that was already applied fails again and again until the dead-letter queue", "уже применённое сообщение падает снова и снова, пока не попадёт в очередь недоставленных сообщений (DLQ)"},
		"why.silent-conflict":   {"a changed amount was acked as a success instead of being quarantined", "изменённую сумму подтвердили как успех вместо карантина"},
		"why.silent-conflict.n": {"%d changed amounts were acked as successes instead of being quarantined", "изменённых сумм, подтверждённых как успех вместо карантина: %d"},

		// What each step does, for steps without a preset's narration.
		"do.publish":                 {"The producer publishes top-up %s for %s.", "Продюсер публикует пополнение %s на %s."},
		"do.publish.v7":              {"The producer publishes top-up %s for %s under a UUIDv7 key made once.", "Продюсер публикует пополнение %s на %s с ключом UUIDv7, созданным один раз."},
		"do.publish.fresh":           {"The producer publishes top-up %s for %s under a fresh random key — a new one on every send.", "Продюсер публикует пополнение %s на %s со свежим случайным ключом — новым при каждой отправке."},
		"do.tenant":                  {"Tenant: %s.", "Тенант: %s."},
		"do.retry":                   {"The producer did not hear back and sends %s again.", "Продюсер не дождался ответа и отправляет %s снова."},
		"do.change-payload":          {"The producer sends %s again under the same key, now for %s.", "Продюсер снова отправляет %s с тем же ключом, но уже на %s."},
		"do.deliver":                 {"A worker takes the oldest ready message, runs the handler and acks.", "Воркер берёт самое старое готовое сообщение, выполняет обработчик и отправляет ack."},
		"do.deliver.be":              {"A worker takes the oldest ready message and dies just before the handler's effect.", "Воркер берёт самое старое готовое сообщение и умирает прямо перед эффектом обработчика."},
		"do.deliver.ae":              {"A worker takes the oldest ready message and dies right after the effect became durable.", "Воркер берёт самое старое готовое сообщение и умирает сразу после того, как эффект записан."},
		"do.deliver.ba":              {"A worker runs the handler to the end, then dies before its ack reaches the broker.", "Воркер выполняет обработчик до конца и умирает раньше, чем ack дошёл до брокера."},
		"do.redeliver":               {"The visibility timeout runs out: every unacked in-flight message goes back to the queue.", "Истекает visibility timeout: все неподтверждённые сообщения возвращаются в очередь."},
		"do.deliver-concurrent":      {"Two workers take the next two ready messages at the same moment.", "Два воркера одновременно берут два следующих готовых сообщения."},
		"do.dlq-replay":              {"An operator replays the dead-letter queue: each message comes back with a new transport id.", "Оператор переотправляет сообщения из DLQ: каждое возвращается с новым транспортным идентификатором."},
		"do.advance":                 {"The clock moves on by %s: TTLs run down and retention jobs run.", "Часы уходят вперёд на %s: истекают TTL, отрабатывает очистка."},
		"do.gateway.down":            {"The payment gateway goes down: every charge fails.", "Платёжный шлюз падает: все списания завершаются ошибкой."},
		"do.gateway.up":              {"The payment gateway is back up.", "Платёжный шлюз снова работает."},
		"do.gateway.timeout":         {"The payment gateway starts timing out: each charge goes through, but its answer never arrives.", "Платёжный шлюз начинает отвечать таймаутом: каждое списание проходит, но ответ до обработчика не доходит."},
		"do.gateway.dedup-on":        {"The provider deduplicates: a second charge with a reference it has seen charges nothing and answers success.", "Провайдер включает дедупликацию: повторное списание с уже знакомым референсом ничего не списывает и отвечает успехом."},
		"do.gateway.dedup-off":       {"The provider stops deduplicating: every call charges.", "Провайдер выключает дедупликацию: каждый вызов списывает деньги."},
		"do.gateway.stall":           {"The next charge hangs for %s and never reaches the provider; the clock runs on meanwhile.", "Следующее списание зависает на %s и так и не доходит до провайдера; часы тем временем идут."},
		"do.deliver-concurrent.same": {"One worker is slow with the oldest message; its visibility timeout runs out and a second worker gets the same message.", "Один воркер медленно обрабатывает самое старое сообщение; его visibility timeout истекает, и то же сообщение получает второй воркер."},
		"do.ship":                    {"The warehouse ships order %s, if it is paid.", "Склад отгружает заказ %s, если он оплачен."},
		"do.drain":                   {"Workers deliver everything that is ready until the queue is empty.", "Воркеры доставляют всё готовое, пока очередь не опустеет."},

		// Handler summaries (the engine's are English only).
		"h.naive":             {"credits every delivery: no protection at all", "зачисляет при каждой доставке: никакой защиты"},
		"h.unique":            {"UNIQUE(idempotency_key) in the same transaction as the credit", "UNIQUE(idempotency_key) в той же транзакции, что и зачисление"},
		"h.setnx":             {"Redis SET NX EX guards an external gateway call", "Redis SET NX EX охраняет вызов внешнего шлюза"},
		"h.setnx-token":       {"setnx corrected: a claim token per attempt, compare-and-delete in Lua, the key as the gateway's reference", "исправленный setnx: токен владельца на каждую попытку, удаление со сверкой токена (Lua), ключ передаётся шлюзу как идентификатор платежа"},
		"h.statemachine":      {"UPDATE orders … WHERE status='CREATED' decides who pays (by order id only, not tenant)", "UPDATE orders … WHERE status='CREATED' решает, кто платит (только по id заказа, без тенанта)"},
		"h.inbox":             {"(tenant, operation) inbox with payload hash and saved response, one transaction", "inbox по (tenant, operation) с хешем содержимого и сохранённым ответом, в одной транзакции"},
		"h.check-then-insert": {"SELECT the key, then INSERT: two racing workers both pass", "SELECT ключа, потом INSERT: два воркера в гонке проходят оба"},
		"h.unique-error":      {"UNIQUE, but a duplicate is returned as an error: a redelivery loop", "UNIQUE, но дубль возвращается как ошибка: цикл отравленного сообщения"},
		"h.marker-first":      {"commits the marker, then the credit: a crash in between loses it", "сначала коммитит маркер, потом зачисление: падение между ними теряет деньги"},
		"h.effect-first":      {"commits the credit, then the marker: a crash in between doubles it", "сначала коммитит зачисление, потом маркер: падение между ними удваивает"},
		"h.broker-key":        {"deduplicates on the broker's transport id, not the producer's key", "отсекает дубли по транспортному идентификатору брокера, а не по ключу продюсера"},
		"h.setnx-no-release":  {"SET NX without DEL when the gateway fails: the retry is skipped", "SET NX без DEL при ошибке шлюза: повтор пропускается"},
		"h.inbox-no-hash":     {"inbox without a payload hash: a changed amount passes as a repeat", "inbox без хеша содержимого: изменённая сумма проходит как повтор"},

		// Holding a class: progress that could not be saved, the import
		// cap, and a room whose server stopped.
		"pr.err.save.title":       {"Your progress could not be saved", "Не удалось сохранить прогресс"},
		"pr.err.save":             {"The lab's progress database refused to save it. This is a problem on the lab's side, not with what you did, and what was saved before is still there. Try again in a minute; if it keeps happening, tell whoever runs the lab: the server log says why.", "База прогресса лаборатории отказалась его записать. Это проблема на стороне лаборатории, а не в ваших действиях; сохранённое раньше никуда не делось. Попробуйте через минуту, а если ошибка повторяется, скажите тому, кто запустил лабораторию: причина записана в журнале сервера."},
		"pr.err.import.cap.title": {"This file does not fit into your progress", "Этот файл не помещается в ваш прогресс"},
		"pr.err.import.cap":       {"Nothing was imported: a profile keeps at most %d answers. This browser's progress has %d, and the file would add %d more. To keep both, import the file in another browser, which starts a profile of its own.", "Ничего не импортировано: профиль хранит не больше %d ответов. В прогрессе этого браузера их уже %d, а файл добавил бы ещё %d. Чтобы сохранить и то и другое, импортируйте файл в другом браузере: там начнётся свой профиль."},
		"rm.stopped":              {"The lab has stopped, and this room with it: the page no longer follows the instructor. When the lab runs again, the instructor opens a new room.", "Лаборатория остановлена, а с ней и эта комната: страница больше не следует за преподавателем. Когда лаборатория снова заработает, преподаватель откроет новую комнату."},

		// The verdict grid (/matrix) and the site navigation's link to it.
		"nav.matrix":  {"Verdicts", "Вердикты"},
		"mx.title":    {"Every scenario on every handler", "Каждый сценарий на каждом обработчике"},
		"mx.hint":     {"What the engine settles each scenario to on each handler: the verdict, then the balance credited after settlement / the balance expected. A cell opens that run in the lab, at its last step.", "Чем движок заканчивает каждый сценарий на каждом обработчике: вердикт, затем баланс после завершения / ожидаемый баланс. Ячейка открывает этот прогон в лаборатории на последнем шаге."},
		"mx.caption":  {"Verdicts by scenario and handler", "Вердикты по сценариям и обработчикам"},
		"mx.scenario": {"Scenario", "Сценарий"},
		"mx.cell":     {"%s on %s: %s, settled %s, expected %s. Open it in the lab", "%s на %s: %s, итог %s, ожидалось %s. Открыть в лаборатории"},
	}
	// A verdict's badge is sim's word for it, in capitals.
	for _, v := range sim.Verdicts() {
		c["v."+string(v)] = [2]string{strings.ToUpper(v.Word("en")), strings.ToUpper(v.Word("ru"))}
	}
	// Each section keeps its words in its own file; add its catalog here.
	for _, section := range []func() catalog{practiceCatalog, lessonsCatalog, presentCatalog, labCatalog, challengesCatalog} {
		for k, v := range section() {
			c[k] = v
		}
	}
	return c
}

package narration

// The cost charts' words (package cost): each chart's title, cost.ID
// for the chart or metric ID, and the words inside a chart. The charts
// are drawn for the cost page, the lessons' measured figures and lab
// bench alike.
func init() {
	register(map[string]message{
		"cost.speed":     msg("Messages per second (this machine, this run)", "Сообщений в секунду (эта машина, этот прогон)"),
		"cost.calls":     msg("Calls per message: SQL statements + Redis commands", "Обращений на сообщение: SQL-запросы + команды Redis"),
		"cost.storage":   msg("Bytes stored per message (tables and indexes)", "Байт хранения на сообщение (таблицы и индексы)"),
		"cost.p99":       msg("p99 time per message, ms", "p99 времени на сообщение, мс"),
		"cost.sql":       msg("SQL statements per message", "SQL-запросов на сообщение"),
		"cost.redis":     msg("Redis commands per message", "Команд Redis на сообщение"),
		"cost.keysize":   msg("Index bytes per row, by key", "Байт индекса на строку, по виду ключа"),
		"cost.keyfill":   msg("Leaf pages filled, by key", "Заполненность листовых страниц, по виду ключа"),
		"cost.keyrate":   msg("Inserts per second, by key", "Вставок в секунду, по виду ключа"),
		"cost.retention": msg("Inbox rows, hour by hour, by retention window", "Строк в inbox по часам, по окну хранения"),
		// The retention chart's x axis, and its line for no cleanup job.
		"cost.hours": msg("hours", "часы"),
		"cost.none":  msg("no job", "без очистки"),
	})
}

package timeline

// Labels are the words the diagram shows, in the reader's language.
type Labels struct {
	Producer, Broker, Worker, SQLite, Redis, Gateway, Clock, Warehouse, Step, Crash string
	// The producer side's own callers of SQLite: the order service and
	// its outbox relay (side rows, as the warehouse's).
	OrderService, Relay string
	// The API side's actors: the client and the server processes.
	Client, Server string
	// Lang is the reader's language ("en" or "ru"): it picks the events'
	// own text in that language.
	Lang string
}

// EnglishLabels returns the diagram's words in English.
func EnglishLabels() Labels {
	return Labels{
		Producer:     "Producer",
		Broker:       "Broker",
		Worker:       "Worker",
		SQLite:       "SQLite",
		Redis:        "Redis",
		Gateway:      "Gateway",
		Clock:        "Clock",
		Warehouse:    "Warehouse",
		OrderService: "Order service",
		Relay:        "Outbox relay",
		Step:         "Step",
		Crash:        "Crash",
		Client:       "Client",
		Server:       "Server",
		Lang:         "en",
	}
}

// RussianLabels returns the diagram's words in Russian.
func RussianLabels() Labels {
	return Labels{
		Producer:     "Продюсер",
		Broker:       "Брокер",
		Worker:       "Воркер",
		SQLite:       "SQLite",
		Redis:        "Redis",
		Gateway:      "Шлюз",
		Clock:        "Часы",
		Warehouse:    "Склад",
		OrderService: "Сервис заказов",
		Relay:        "Relay outbox",
		Step:         "Шаг",
		Crash:        "Падение",
		Client:       "Клиент",
		Server:       "Сервер",
		Lang:         "ru",
	}
}

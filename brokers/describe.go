package brokers

// Describe says what server a real broker's name stands for, as a reader
// of lab run's table needs it: which server, and where it runs.
func Describe(name string) string {
	switch name {
	case "nats":
		return "NATS JetStream server (nats-server, embedded in the lab's process, memory storage)"
	case "rabbitmq":
		return "RabbitMQ server (reached at the --broker URL through amqp091-go: a quorum queue per world, basic.get, ack, reject, a channel closed for a crash)"
	case "kafka":
		return "Kafka-protocol cluster (franz-go's kfake, in the lab's process: Kafka's wire protocol and group offsets, not Apache Kafka itself)"
	}
	return name + " server"
}

package brokers

// Describe says what server a real broker's name stands for, as a reader
// of lab run's table needs it: which server, and where it runs.
func Describe(name string) string {
	switch name {
	case "nats":
		return "NATS JetStream server (nats-server, embedded in the lab's process, memory storage)"
	case "kafka":
		return "Kafka-protocol cluster (franz-go's kfake, in the lab's process: Kafka's wire protocol and group offsets, not Apache Kafka itself)"
	}
	return name + " server"
}

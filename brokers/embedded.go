//go:build !lean

package brokers

// embeddedNames are the brokers this binary runs in its own process:
// NATS JetStream (nats-server) and Kafka's protocol (franz-go's kfake).
// A lean build (go build -tags lean, make build-lean) leaves both out.
const embeddedNames = "nats, kafka"

// openEmbedded starts the embedded broker name.
func openEmbedded(name string) (Server, error) {
	if name == "nats" {
		return NewNATS()
	}
	return NewKafka(), nil
}

//go:build lean

package brokers

import "fmt"

// embeddedNames is empty in a lean build: it links neither nats-server
// nor kfake, so the binary is about 18 MB smaller (the README's figures).
const embeddedNames = ""

// openEmbedded refuses: a lean build has no broker in its process.
func openEmbedded(name string) (Server, error) {
	return nil, fmt.Errorf("--broker %s: this lab was built lean (go build -tags lean), without the embedded NATS and Kafka; "+
		"run a full build (make build) for them, or give a RabbitMQ server's %s", name, AMQPForm)
}

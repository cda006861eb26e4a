// Package outbox is the Go port of the transactional Outbox relay practice:
// a relay moves events from an outbox table to a flaky broker, keeping each
// order's events in order, and an idempotent consumer turns at-least-once
// delivery into exactly-once effect.
package outbox

// Message is one outbox row: an event of one aggregate (an order). The
// teaching scope drops payload and headers; id, aggregate and event type
// are all the relay and the consumer need to show ordering and dedupe. The
// outbox assigns ID, increasing in insertion order; it is the only thing
// that tells a redelivery from an honest second event.
type Message struct {
	ID        int64
	Aggregate string
	Type      string
}

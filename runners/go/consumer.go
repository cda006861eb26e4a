package outbox

import "fmt"

// Consumer is the delivery service: turns at-least-once delivery into
// exactly-once effect by remembering which message ids it has processed. It
// cannot tell a repeat by content (two identical "paid" events can both be
// honest); only the outbox-assigned id tells. The zero value is ready to use.
type Consumer struct {
	processed  map[int64]bool
	journal    []string
	duplicates int
}

// Handle does the work once per message id; a redelivery is only counted.
func (c *Consumer) Handle(m Message) {
	if c.processed[m.ID] {
		c.duplicates++
		return
	}
	if c.processed == nil {
		c.processed = map[int64]bool{}
	}
	c.processed[m.ID] = true
	c.journal = append(c.journal, fmt.Sprintf("%s %s", m.Aggregate, m.Type))
}

// Journal returns the work done, in order: "<aggregate> <type>" per message.
func (c *Consumer) Journal() []string {
	return append([]string{}, c.journal...)
}

// Duplicates returns how many redeliveries were dropped.
func (c *Consumer) Duplicates() int {
	return c.duplicates
}

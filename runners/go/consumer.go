package outbox

import "fmt"

// Consumer is the delivery service: turns at-least-once delivery into
// exactly-once effect by remembering which message ids it has processed. It
// cannot tell a repeat by content (two identical "paid" events can both be
// honest); only the outbox-assigned id tells. The zero value is ready to use.
type Consumer struct {
	// Retention, in passes: the consumer forgets each id Retention passes
	// after the pass it applied it in (0, the zero value: never), as a real
	// inbox's cleanup does.
	Retention int
	// Each processed id and the pass it was applied in.
	processed map[int64]int
	// The processed ids oldest first, kept only with a retention: a map has
	// no order, and Tick forgets from the oldest.
	applied []int64
	// The pass number: how many times Tick was called.
	clock      int
	journal    []string
	duplicates int
}

// Tick advances the clock by one pass and forgets every id whose window
// ended: one applied at pass t is forgotten at pass t + Retention. A repeat
// that comes later is applied again: the retention must outlast the longest
// redelivery.
func (c *Consumer) Tick() {
	c.clock++
	for len(c.applied) > 0 && c.clock-c.processed[c.applied[0]] >= c.Retention {
		delete(c.processed, c.applied[0])
		c.applied = c.applied[1:]
	}
}

// Handle does the work once per message id; a redelivery is only counted.
// With a retention, once per id within its window: the id is remembered from
// the pass it is applied in, and a dropped repeat does not extend the window.
func (c *Consumer) Handle(m Message) {
	if _, seen := c.processed[m.ID]; seen {
		c.duplicates++
		return
	}
	if c.processed == nil {
		c.processed = map[int64]int{}
	}
	c.processed[m.ID] = c.clock
	if c.Retention > 0 {
		c.applied = append(c.applied, m.ID)
	}
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

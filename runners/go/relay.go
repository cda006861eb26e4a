package outbox

import (
	"errors"
	"fmt"
)

// OutboxRelay moves unsent rows from the outbox table to the broker, one pass
// at a time. It keeps nothing between passes (all state is in the table), so
// a new relay can be built at any pass boundary and carries on where the last
// one stopped.
type OutboxRelay struct {
	table     *OutboxTable
	broker    Broker
	batchSize int
}

// NewOutboxRelay returns a relay taking at most batchSize rows per pass.
func NewOutboxRelay(table *OutboxTable, broker Broker, batchSize int) *OutboxRelay {
	return &OutboxRelay{table: table, broker: broker, batchSize: batchSize}
}

// RunOnce makes one pass over the oldest unsent rows, returning the ids
// sent, in order. A failed publish leaves its row unsent (the next pass
// retries it) and blocks its aggregate for the rest of the pass, so a later
// event of the same order cannot overtake it. The error joins every publish
// failure of the pass, each wrapped with its message id; an error that is
// not ErrPublishFailed stops the pass and is returned with them.
func (r *OutboxRelay) RunOnce() ([]int64, error) {
	blocked := map[string]bool{}
	sent := []int64{}
	var failures []error
	for _, m := range r.table.Unsent(r.batchSize) {
		if blocked[m.Aggregate] {
			continue
		}
		err := r.broker.Publish(m)
		if err == nil {
			r.table.MarkSent(m.ID)
			sent = append(sent, m.ID)
			continue
		}
		failures = append(failures, fmt.Errorf("message %d: %w", m.ID, err))
		if !errors.Is(err, ErrPublishFailed) {
			break
		}
		blocked[m.Aggregate] = true
	}
	return sent, errors.Join(failures...)
}

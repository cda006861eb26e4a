package outbox

import (
	"errors"
	"fmt"
)

// OnExhausted is what becomes of a dead letter's order: the choice between
// liveness and order that every capped relay makes.
type OnExhausted int

const (
	// Release, the zero value: the order goes on with its next row on the
	// next run; the consumer may then see OrderPaid without OrderPlaced.
	Release OnExhausted = iota
	// Park: no row of the order is fetched until a person unparks it, so none
	// overtakes the dead letter.
	Park
)

// AttemptCap is the attempt limit: without it, a message that always fails
// blocks its order forever.
type AttemptCap struct {
	// MaxAttempts is the failed publish calls after which a row becomes a
	// dead letter, at least 1.
	MaxAttempts int
	// OnExhausted is what becomes of the row's order then.
	OnExhausted OnExhausted
}

// RelayOptions is what a relay is told beyond its table, broker and batch
// size. The zero value is the relay built without options: the whole
// table, row by row, no cap.
type RelayOptions struct {
	// Partition is the orders this relay publishes, when several share the
	// table.
	Partition Partition
	// Fetch is rows, or only the oldest row of each order.
	Fetch Fetch
	// Cap nil: a failing row is retried on every run, forever.
	Cap *AttemptCap
	// Alert is told each dead letter as the relay makes it, so that a person
	// hears of it: the relay raises the alert, the caller decides where it
	// goes. Nil: nobody is told.
	Alert func(DeadLetter)
}

// OutboxRelay moves unsent rows from the outbox table to the broker, one pass
// at a time. It keeps nothing between passes (all state is in the table), so
// a new relay can be built at any pass boundary and carries on where the last
// one stopped.
type OutboxRelay struct {
	table     *OutboxTable
	broker    Broker
	batchSize int
	options   RelayOptions
}

// NewOutboxRelay returns a relay taking at most batchSize rows per pass.
func NewOutboxRelay(table *OutboxTable, broker Broker, batchSize int) *OutboxRelay {
	return NewOutboxRelayWith(table, broker, batchSize, RelayOptions{})
}

// NewOutboxRelayWith returns a relay as NewOutboxRelay builds it, told
// options as well: one of several, a fetch by heads, an attempt cap and its
// alert.
func NewOutboxRelayWith(
	table *OutboxTable, broker Broker, batchSize int, options RelayOptions,
) *OutboxRelay {
	return &OutboxRelay{table: table, broker: broker, batchSize: batchSize, options: options}
}

// RunOnce makes one pass over the oldest unsent rows, returning the ids
// sent, in order. A failed publish leaves its row unsent (the next pass
// retries it) and blocks its aggregate for the rest of the pass, so a later
// event of the same order cannot overtake it. The table counts the failure;
// when the count reaches the cap, the row becomes a dead letter, its order is
// parked if the cap says so, and the alert is raised. The error joins every
// publish failure of the pass, each wrapped with its message id; an error
// that is not ErrPublishFailed stops the pass and is returned with them.
func (r *OutboxRelay) RunOnce() ([]int64, error) {
	o := r.options
	blocked := map[string]bool{}
	sent := []int64{}
	var failures []error
	for _, m := range r.table.Unsent(r.batchSize, o.Partition, o.Fetch) {
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
		attempts := r.table.MarkFailed(m.ID)
		if o.Cap == nil || attempts < o.Cap.MaxAttempts {
			continue
		}
		letter := r.table.DeadLetter(m.ID)
		if o.Cap.OnExhausted == Park {
			r.table.Park(m.Aggregate)
		}
		if o.Alert != nil {
			o.Alert(letter)
		}
	}
	return sent, errors.Join(failures...)
}

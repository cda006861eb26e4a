package outbox

import (
	"fmt"
	"slices"
)

// OutboxTable holds the rows waiting for the relay: the unsent messages in
// insertion order. A slice, appended to by Add: a Go map has no order. The
// zero value is an empty table.
type OutboxTable struct {
	unsent []Message
	// Kept apart from the rows: the last row may be sent already. Ids start
	// at 1, so the zero value needs no "nothing added yet" case.
	lastID int64
}

// NewOutboxTable returns an empty table.
func NewOutboxTable() *OutboxTable {
	return &OutboxTable{}
}

// Add appends a row; refuses an id that does not increase (a writer's bug)
// with [OutOfOrder].
func (t *OutboxTable) Add(m Message) error {
	if m.ID <= t.lastID {
		return &OutOfOrder{ID: m.ID, LastID: t.lastID}
	}
	t.lastID = m.ID
	t.unsent = append(t.unsent, m)
	return nil
}

// Unsent returns the oldest unsent rows in insertion order, at most limit: a
// copy, because the relay marks rows sent while it walks the batch.
func (t *OutboxTable) Unsent(limit int) []Message {
	return slices.Clone(t.unsent[:min(limit, len(t.unsent))])
}

// MarkSent takes the row out of later Unsent selections.
func (t *OutboxTable) MarkSent(id int64) {
	t.unsent = slices.DeleteFunc(t.unsent, func(m Message) bool { return m.ID == id })
}

// HasUnsent reports whether the relay still has work: the demo's loop condition.
func (t *OutboxTable) HasUnsent() bool {
	return len(t.unsent) > 0
}

// OutOfOrder means Add was given an id not greater than the last one: the
// table's order would no longer be insertion order.
type OutOfOrder struct {
	ID, LastID int64
}

func (e *OutOfOrder) Error() string {
	return fmt.Sprintf("message id %d is not greater than the last id %d", e.ID, e.LastID)
}

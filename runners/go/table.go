package outbox

import (
	"cmp"
	"fmt"
	"slices"
)

// none marks the end of the chain of unsent rows.
const none = -1

// row is one message of the table, linked to its unsent neighbours.
type row struct {
	message    Message
	prev, next int
	sent       bool
}

// OutboxTable holds the rows waiting for the relay. The outbox assigns
// increasing ids, so appending keeps the rows sorted by id: MarkSent finds
// a row by binary search, in O(log n) and without a hash map, whose lookups
// scatter over memory once the table outgrows the cache. The unsent rows
// are also chained in insertion order, so Unsent walks only the rows it
// returns, never the sent ones between them.
type OutboxTable struct {
	rows           []row
	oldest, newest int
}

// NewOutboxTable returns an empty table.
func NewOutboxTable() *OutboxTable {
	return &OutboxTable{oldest: none, newest: none}
}

// Add appends a row. Its id must be greater than the last one: the outbox
// assigns them in increasing order.
func (t *OutboxTable) Add(m Message) error {
	if n := len(t.rows); n > 0 && m.ID <= t.rows[n-1].message.ID {
		return fmt.Errorf("message id %d is not greater than the last id %d", m.ID, t.rows[n-1].message.ID)
	}
	i := len(t.rows)
	t.rows = append(t.rows, row{message: m, prev: t.newest, next: none})
	if t.newest == none {
		t.oldest = i
	} else {
		t.rows[t.newest].next = i
	}
	t.newest = i
	return nil
}

// Unsent returns the oldest unsent rows in insertion order, at most limit.
// It is a copy: the relay marks rows sent while it walks the batch.
func (t *OutboxTable) Unsent(limit int) []Message {
	batch := []Message{}
	for i := t.oldest; i != none && len(batch) < limit; i = t.rows[i].next {
		batch = append(batch, t.rows[i].message)
	}
	return batch
}

// MarkSent takes the row out of later Unsent selections.
func (t *OutboxTable) MarkSent(id int64) {
	i, found := slices.BinarySearchFunc(t.rows, id, func(r row, id int64) int {
		return cmp.Compare(r.message.ID, id)
	})
	if !found || t.rows[i].sent {
		return
	}
	r := &t.rows[i]
	r.sent = true
	if r.prev == none {
		t.oldest = r.next
	} else {
		t.rows[r.prev].next = r.next
	}
	if r.next == none {
		t.newest = r.prev
	} else {
		t.rows[r.next].prev = r.prev
	}
}

// HasUnsent reports whether the relay still has work.
func (t *OutboxTable) HasUnsent() bool {
	return t.oldest != none
}

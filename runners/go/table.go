package outbox

import "container/list"

// OutboxTable holds the rows waiting for the relay. A Go map has no order,
// so unsent rows also sit in a linked list in insertion order: Unsent walks
// only the rows it returns and MarkSent unlinks a row in O(1), however large
// the backlog.
type OutboxTable struct {
	order *list.List
	rows  map[int64]*list.Element
}

// NewOutboxTable returns an empty table.
func NewOutboxTable() *OutboxTable {
	return &OutboxTable{order: list.New(), rows: map[int64]*list.Element{}}
}

// Add appends a row (insertion order).
func (t *OutboxTable) Add(m Message) {
	t.rows[m.ID] = t.order.PushBack(m)
}

// Unsent returns the oldest unsent rows in insertion order, at most limit.
// It is a copy: the relay marks rows sent while it walks the batch.
func (t *OutboxTable) Unsent(limit int) []Message {
	batch := []Message{}
	for e := t.order.Front(); e != nil && len(batch) < limit; e = e.Next() {
		batch = append(batch, e.Value.(Message))
	}
	return batch
}

// MarkSent takes the row out of later Unsent selections.
func (t *OutboxTable) MarkSent(id int64) {
	if e, ok := t.rows[id]; ok {
		t.order.Remove(e)
		delete(t.rows, id)
	}
}

// HasUnsent reports whether the relay still has work.
func (t *OutboxTable) HasUnsent() bool {
	return t.order.Len() > 0
}

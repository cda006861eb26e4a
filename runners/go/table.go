package outbox

// row is one unsent message, linked to its neighbours in insertion order.
type row struct {
	message    Message
	prev, next *row
}

// OutboxTable holds the rows waiting for the relay. A Go map has no order,
// so unsent rows are also linked in insertion order: Unsent walks only the
// rows it returns and MarkSent unlinks a row in O(1), however large the
// backlog. (container/list would box every Message in an interface.)
type OutboxTable struct {
	rows           map[int64]*row
	oldest, newest *row
}

// NewOutboxTable returns an empty table.
func NewOutboxTable() *OutboxTable {
	return &OutboxTable{rows: map[int64]*row{}}
}

// Add appends a row (insertion order).
func (t *OutboxTable) Add(m Message) {
	r := &row{message: m, prev: t.newest}
	if t.newest == nil {
		t.oldest = r
	} else {
		t.newest.next = r
	}
	t.newest = r
	t.rows[m.ID] = r
}

// Unsent returns the oldest unsent rows in insertion order, at most limit.
// It is a copy: the relay marks rows sent while it walks the batch.
func (t *OutboxTable) Unsent(limit int) []Message {
	batch := []Message{}
	for r := t.oldest; r != nil && len(batch) < limit; r = r.next {
		batch = append(batch, r.message)
	}
	return batch
}

// MarkSent takes the row out of later Unsent selections.
func (t *OutboxTable) MarkSent(id int64) {
	r, ok := t.rows[id]
	if !ok {
		return
	}
	delete(t.rows, id)
	if r.prev == nil {
		t.oldest = r.next
	} else {
		r.prev.next = r.next
	}
	if r.next == nil {
		t.newest = r.prev
	} else {
		r.next.prev = r.prev
	}
}

// HasUnsent reports whether the relay still has work.
func (t *OutboxTable) HasUnsent() bool {
	return t.oldest != nil
}

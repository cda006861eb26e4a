package outbox

import (
	"fmt"
	"slices"
)

// Partition is the orders one relay of several publishes: those whose hash,
// modulo the number of relays, is its index, so two relays never take rows
// of one order and each order keeps its order. The default, 0 of 1, is the
// whole table: one relay owns every order. The zero value, count 0, is the
// whole table as well.
type Partition struct {
	// Index is this relay's index, below Count.
	Index uint32
	// Count is how many relays share the table; 0 counts as 1.
	Count uint32
}

// Fnv1a32 is FNV-1a, 32 bits, over the UTF-8 bytes of text: the same number
// in every language, which a language's built-in string hash is not.
func Fnv1a32(text string) uint32 {
	hash := uint32(2166136261)
	// Indexing a string reads its UTF-8 bytes (ranging over it would read
	// runes); uint32 arithmetic wraps modulo 2^32.
	for i := 0; i < len(text); i++ {
		hash = (hash ^ uint32(text[i])) * 16777619
	}
	return hash
}

// Owns reports whether this relay publishes the order aggregate: its hash,
// read as an unsigned number, modulo Count is Index.
func (p Partition) Owns(aggregate string) bool {
	return p.Count == 0 || Fnv1a32(aggregate)%p.Count == p.Index
}

// Fetch is which unsent rows a fetch takes, before it takes at most limit
// of them.
type Fetch int

const (
	// Rows, the zero value: every row; a batch full of one blocked order
	// sends nothing for the others.
	Rows Fetch = iota
	// Heads: the oldest row of each order only; a blocked order costs one
	// slot, and an order with k rows needs k runs.
	Heads
)

// DeadLetter is a row the relay gave up on: it left the unsent rows after
// Attempts failed publish calls, for a person to look at.
type DeadLetter struct {
	// Message is the row as it was written.
	Message Message
	// Attempts is its failed publish calls, the last included.
	Attempts int
}

// OutboxTable holds the rows waiting for the relay: the unsent messages in
// insertion order. A slice, appended to by Add: a Go map has no order. The
// zero value is an empty table.
type OutboxTable struct {
	unsent []Message
	// Kept apart from the rows: the last row may be sent already. Ids start
	// at 1, so the zero value needs no "nothing added yet" case.
	lastID int64
	// Failed publish calls per row that ever failed; kept after the row is
	// sent, as a count never resets. Made on first use, as parked is.
	attempts    map[int64]int
	deadLetters []DeadLetter
	// Orders whose rows no fetch takes until they are unparked.
	parked map[string]bool
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
// copy, because the relay marks rows sent while it walks the batch. Only rows
// of the orders the partition owns that are not parked, and with [Heads] only
// the oldest such row of each order: these filters come before the limit, so
// a row they leave out takes no slot.
func (t *OutboxTable) Unsent(limit int, partition Partition, fetch Fetch) []Message {
	batch := []Message{}
	taken := map[string]bool{} // the orders in the batch so far
	for _, m := range t.unsent {
		if len(batch) >= limit {
			break
		}
		head := fetch == Rows || !taken[m.Aggregate]
		if partition.Owns(m.Aggregate) && !t.parked[m.Aggregate] && head {
			taken[m.Aggregate] = true
			batch = append(batch, m)
		}
	}
	return batch
}

// MarkSent takes the row out of later Unsent selections.
func (t *OutboxTable) MarkSent(id int64) {
	t.unsent = slices.DeleteFunc(t.unsent, func(m Message) bool { return m.ID == id })
}

// MarkFailed counts one failed publish call of the row and returns its count
// so far: the table keeps it, since a relay keeps nothing between runs. A
// lost ack counts, as the relay cannot tell it from a broker that is down; a
// count never resets.
func (t *OutboxTable) MarkFailed(id int64) int {
	if t.attempts == nil {
		t.attempts = map[int64]int{}
	}
	t.attempts[id]++
	return t.attempts[id]
}

// DeadLetter moves the row from the unsent rows to the dead letters, with its
// attempts, and returns it: no fetch takes it again.
//
// # Panics
//
// When id is not an unsent row: the relay dead-letters only a row it has
// just fetched.
func (t *OutboxTable) DeadLetter(id int64) DeadLetter {
	i := slices.IndexFunc(t.unsent, func(m Message) bool { return m.ID == id })
	if i < 0 {
		panic(fmt.Sprintf("message %d is no unsent row to dead-letter", id))
	}
	letter := DeadLetter{Message: t.unsent[i], Attempts: t.attempts[id]}
	t.unsent = slices.Delete(t.unsent, i, i+1)
	t.deadLetters = append(t.deadLetters, letter)
	return letter
}

// Park holds every row of the order back from Unsent (they take no slot)
// until Unpark: a dead letter then cannot be overtaken by its order's later
// events.
func (t *OutboxTable) Park(aggregate string) {
	if t.parked == nil {
		t.parked = map[string]bool{}
	}
	t.parked[aggregate] = true
}

// Unpark lets Unsent take the order's rows again, from its oldest; an order
// that is not parked is left as it is.
func (t *OutboxTable) Unpark(aggregate string) {
	delete(t.parked, aggregate)
}

// DeadLetters returns the rows given up on, in the order they were: what a
// person reads.
func (t *OutboxTable) DeadLetters() []DeadLetter {
	return slices.Clone(t.deadLetters) // a copy: no caller can change them
}

// HasUnsent reports whether the relay still has work: the demo's loop
// condition. A parked order's rows count (they are still unsent); dead
// letters do not.
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

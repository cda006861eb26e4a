package outbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The parity table checks results; these check the Go idioms it cannot see.

func seed(t *OutboxTable) {
	for _, m := range []Message{
		{ID: 1, Aggregate: "order-1", Type: "OrderPlaced"},
		{ID: 2, Aggregate: "order-2", Type: "OrderPlaced"},
		{ID: 3, Aggregate: "order-1", Type: "OrderPaid"},
	} {
		if err := t.Add(m); err != nil {
			panic(err)
		}
	}
}

// unsent is every unsent row of the whole table, as one relay fetches it.
func unsent(t *OutboxTable) []Message {
	return t.Unsent(10, Partition{}, Rows)
}

func ids(batch []Message) []int64 {
	var ids []int64
	for _, m := range batch {
		ids = append(ids, m.ID)
	}
	return ids
}

func tableOf(rows ...string) *OutboxTable {
	table := NewOutboxTable()
	for i := 0; i < len(rows); i += 2 {
		if err := table.Add(Message{ID: int64(i/2 + 1), Aggregate: rows[i], Type: rows[i+1]}); err != nil {
			panic(err)
		}
	}
	return table
}

func TestRunOnceJoinsPublishFailuresWrappedWithTheirIDs(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: LostAck, 2: Down})
	sent, err := NewOutboxRelay(table, broker, 10).RunOnce()
	if len(sent) != 0 {
		t.Fatalf("sent %v, want none: both orders are blocked", sent)
	}
	if !errors.Is(err, ErrPublishFailed) {
		t.Fatalf("errors.Is(%v, ErrPublishFailed) = false", err)
	}
	for _, want := range []string{"message 1: publish failed: ack lost", "message 2: publish failed: broker down"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

type brokenBroker struct{ calls int }

var errDisk = errors.New("disk on fire")

func (b *brokenBroker) Publish(m Message) error {
	b.calls++
	if m.ID == 1 {
		return ErrPublishFailed
	}
	return errDisk
}

func TestAnErrorThatIsNotAPublishFailureStopsThePass(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	broker := &brokenBroker{}
	_, err := NewOutboxRelay(table, broker, 10).RunOnce()
	if !errors.Is(err, errDisk) || !errors.Is(err, ErrPublishFailed) {
		t.Fatalf("err = %v, want the disk error joined with the failure before it", err)
	}
	if broker.calls != 2 {
		t.Errorf("%d publish calls, want 2: the pass stops at the disk error", broker.calls)
	}
	if !table.HasUnsent() || len(unsent(table)) != 3 {
		t.Errorf("rows were marked sent although nothing was published")
	}
}

func TestZeroValueConsumerIsReady(t *testing.T) {
	var consumer Consumer
	m := Message{ID: 7, Aggregate: "order-1", Type: "OrderPlaced"}
	consumer.Handle(m)
	consumer.Handle(m)
	if got := consumer.Journal(); len(got) != 1 || got[0] != "order-1 OrderPlaced" {
		t.Errorf("journal = %v", got)
	}
	if consumer.Duplicates() != 1 {
		t.Errorf("duplicates = %d, want 1", consumer.Duplicates())
	}
}

func TestUnsentIsACopyInInsertionOrder(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	table.MarkSent(1)
	batch := table.Unsent(1, Partition{}, Rows)
	if len(batch) != 1 || batch[0].ID != 2 {
		t.Fatalf("Unsent(1) = %v, want [2]", batch)
	}
	table.MarkSent(2)
	if batch[0].ID != 2 {
		t.Errorf("marking a row sent changed a batch already taken")
	}
}

func TestAddRefusesAnIDThatDoesNotIncreaseWithATypedError(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	err := table.Add(Message{ID: 3, Aggregate: "order-2", Type: "OrderPaid"})
	var refused *OutOfOrder
	if !errors.As(err, &refused) || refused.ID != 3 || refused.LastID != 3 {
		t.Fatalf("Add(id 3 after id 3) = %v, want *OutOfOrder{3, 3}", err)
	}
	if want := "message id 3 is not greater than the last id 3"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got := unsent(table); len(got) != 3 {
		t.Errorf("a refused row was added: %v", got)
	}
	for id := int64(1); id <= 3; id++ {
		table.MarkSent(id)
	}
	if err := table.Add(Message{ID: 2, Aggregate: "order-2", Type: "OrderShipped"}); !errors.As(err, &refused) {
		t.Errorf("Add(id 2 after id 3) = %v once the table had drained, want *OutOfOrder", err)
	}
}

func TestConsumerTellsRepeatsByIDEvenOutOfOrder(t *testing.T) {
	var consumer Consumer
	for _, id := range []int64{5, 2, 9, 2, 5, 7} {
		consumer.Handle(Message{ID: id, Aggregate: "order-1", Type: "OrderPaid"})
	}
	if consumer.Duplicates() != 2 || len(consumer.Journal()) != 4 {
		t.Errorf("duplicates %d, journal %v; want 2 and four entries", consumer.Duplicates(), consumer.Journal())
	}
}

func TestMarkSentOfAnUnknownOrSentIDChangesNothing(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	table.MarkSent(2)
	table.MarkSent(2)
	table.MarkSent(42)
	got := unsent(table)
	if len(got) != 2 || got[0].ID != 1 || got[1].ID != 3 {
		t.Errorf("Unsent = %v, want [1 3]", got)
	}
}

func TestFnv1a32HashesUTF8BytesAsAnUnsignedNumber(t *testing.T) {
	for text, want := range map[string]uint32{
		"":        0x811c9dc5,
		"a":       0xe40c292c,
		"foobar":  0xbf9cf968,
		"order-1": 0x2b7fcd6d,
		"order-2": 0x287fc8b4,
		// UTF-8 bytes: hashing UTF-16 code units gives 0x537e7965.
		"order-é": 0x5fd94d7a,
		// Over 2^31, not ASCII: a signed remainder by 3 is -2, no relay.
		"заказ-1": 0xcba8ad55,
		// Over 2^31: Java's % on an int gives 0 by 3, not 1.
		"order-10": 0xd7304967,
	} {
		if got := Fnv1a32(text); got != want {
			t.Errorf("Fnv1a32(%q) = %#x, want %#x", text, got, want)
		}
	}
}

func TestAPartitionOwnsTheOrdersWhoseHashFallsOnItsIndex(t *testing.T) {
	for _, whole := range []Partition{{}, {Index: 0, Count: 1}} {
		for _, aggregate := range []string{"", "order-1", "заказ-1"} {
			if !whole.Owns(aggregate) {
				t.Errorf("%+v does not own %q: the whole table owns every order", whole, aggregate)
			}
		}
	}
	if !(Partition{1, 2}).Owns("order-1") || !(Partition{0, 2}).Owns("order-2") ||
		(Partition{0, 2}).Owns("order-1") || (Partition{1, 2}).Owns("order-2") {
		t.Errorf("order-1 belongs to relay 1 of 2 and order-2 to relay 0")
	}
	for aggregate, owner := range map[string]uint32{"order-é": 1, "заказ-1": 2, "order-10": 1} {
		var owners []uint32
		for index := uint32(0); index < 3; index++ {
			if (Partition{index, 3}).Owns(aggregate) {
				owners = append(owners, index)
			}
		}
		if !slices.Equal(owners, []uint32{owner}) {
			t.Errorf("%q is owned by %v of 3, want [%d]", aggregate, owners, owner)
		}
	}
}

func TestTheFiltersComeBeforeTheLimit(t *testing.T) {
	table := tableOf("order-1", "OrderPlaced", "order-1", "OrderPaid", "order-2", "OrderPlaced",
		"order-1", "OrderShipped", "order-3", "OrderPlaced", "order-2", "OrderPaid")
	// order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
	for _, c := range []struct {
		limit     int
		partition Partition
		fetch     Fetch
		want      []int64
	}{
		{2, Partition{}, Rows, []int64{1, 2}},
		{10, Partition{}, Heads, []int64{1, 3, 5}},
		{2, Partition{}, Heads, []int64{1, 3}},    // heads' limit counts orders
		{2, Partition{1, 2}, Rows, []int64{1, 2}}, // other partitions' rows take no slot
		{10, Partition{1, 2}, Heads, []int64{1, 5}},
		{1, Partition{0, 2}, Rows, []int64{3}},
	} {
		if got := ids(table.Unsent(c.limit, c.partition, c.fetch)); !slices.Equal(got, c.want) {
			t.Errorf("Unsent(%d, %+v, %v) = %v, want %v", c.limit, c.partition, c.fetch, got, c.want)
		}
	}
}

func TestAParkedOrderIsNotFetchedUntilItIsUnparked(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	table.Unpark("order-1")
	if got := ids(unsent(table)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("after unparking what is not parked, Unsent = %v", got)
	}
	table.Park("order-1")
	if got := ids(table.Unsent(1, Partition{}, Rows)); !slices.Equal(got, []int64{2}) {
		t.Errorf("Unsent(1) = %v, want [2]: a parked row takes no slot", got)
	}
	if got := ids(table.Unsent(10, Partition{}, Heads)); !slices.Equal(got, []int64{2}) {
		t.Errorf("Unsent(heads) = %v, want [2]", got)
	}
	table.MarkSent(2)
	if !table.HasUnsent() {
		t.Errorf("a parked row is still unsent")
	}
	table.Unpark("order-1")
	if got := ids(unsent(table)); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("after the unpark, Unsent = %v, want [1 3]", got)
	}
}

func TestFailuresAreCountedPerRowAndNeverReset(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	if a, b, c := table.MarkFailed(1), table.MarkFailed(3), table.MarkFailed(1); a != 1 || b != 1 || c != 2 {
		t.Errorf("MarkFailed counted %d, %d, %d; want 1, 1, 2", a, b, c)
	}
	if got := ids(unsent(table)); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("a failure left Unsent = %v, want the row still unsent", got)
	}
	want := DeadLetter{Message: Message{ID: 1, Aggregate: "order-1", Type: "OrderPlaced"}, Attempts: 2}
	if letter := table.DeadLetter(1); letter != want {
		t.Errorf("DeadLetter(1) = %+v, want %+v", letter, want)
	}
	letters := table.DeadLetters()
	if !slices.Equal(letters, []DeadLetter{want}) {
		t.Errorf("DeadLetters() = %+v", letters)
	}
	letters[0].Attempts = 99
	if table.DeadLetters()[0].Attempts != 2 {
		t.Errorf("DeadLetters() is not a copy: a caller changed the table's")
	}
	if got := ids(unsent(table)); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("Unsent = %v, want [2 3]: a dead letter is not unsent", got)
	}
	if n := table.MarkFailed(3); n != 2 {
		t.Errorf("MarkFailed(3) = %d, want 2", n)
	}
	table.MarkSent(2)
	table.MarkSent(3)
	if table.HasUnsent() || len(table.DeadLetters()) != 1 {
		t.Errorf("dead letters are no work, and stay: HasUnsent %v, %d letters", table.HasUnsent(), len(table.DeadLetters()))
	}
	defer func() {
		if recover() == nil {
			t.Errorf("DeadLetter of a row that is not unsent did not panic")
		}
	}()
	table.DeadLetter(2)
}

// runs plays a relay built by build once per run, collecting what each run
// sent and dead-lettered.
func runs(t *testing.T, n int, build func(alert func(DeadLetter)) *OutboxRelay) (sent, dead [][]int64) {
	t.Helper()
	for range n {
		letters := []int64{}
		batch, err := build(func(l DeadLetter) { letters = append(letters, l.Message.ID) }).RunOnce()
		if err != nil && !errors.Is(err, ErrPublishFailed) {
			t.Fatalf("RunOnce: %v", err)
		}
		sent, dead = append(sent, batch), append(dead, letters)
	}
	return sent, dead
}

// SPEC's example: MaxAttempts 2, Down on attempts 1 and 3.
func TestTheCapReleasesAnOrderAfterItsDeadLetter(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: Down, 3: Down})
	sent, dead := runs(t, 3, func(alert func(DeadLetter)) *OutboxRelay {
		return NewOutboxRelayWith(table, broker, 10, RelayOptions{Cap: &AttemptCap{MaxAttempts: 2}, Alert: alert})
	})
	if !slices.EqualFunc(sent, [][]int64{{2}, {}, {3}}, slices.Equal) || !slices.EqualFunc(dead, [][]int64{{}, {1}, {}}, slices.Equal) {
		t.Errorf("sent %v, dead-lettered %v; want [[2] [] [3]] and [[] [1] []]", sent, dead)
	}
	if table.DeadLetters()[0].Attempts != 2 {
		t.Errorf("the dead letter has %d attempts, want 2", table.DeadLetters()[0].Attempts)
	}
	if got := consumer.Journal(); !slices.Equal(got, []string{"order-2 OrderPlaced", "order-1 OrderPaid"}) || consumer.Duplicates() != 0 {
		t.Errorf("journal %v, duplicates %d", got, consumer.Duplicates())
	}
}

func TestParkHoldsTheOrderAndALostAckDeadLetterWasDelivered(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: LostAck})
	var alerts []DeadLetter
	relay := NewOutboxRelayWith(table, broker, 10, RelayOptions{
		Cap:   &AttemptCap{MaxAttempts: 1, OnExhausted: Park},
		Alert: func(l DeadLetter) { alerts = append(alerts, l) },
	})
	first, _ := relay.RunOnce()
	second, err := relay.RunOnce()
	if !slices.Equal(first, []int64{2}) || len(second) != 0 || err != nil {
		t.Errorf("runs sent %v, then %v (%v); want [2], then nothing: order-1 is parked", first, second, err)
	}
	if len(alerts) != 1 || alerts[0].Message.ID != 1 || !slices.Equal(table.DeadLetters(), alerts) {
		t.Errorf("alerts %+v, dead letters %+v; want message 1 once in both", alerts, table.DeadLetters())
	}
	table.Unpark("order-1")
	if sent, _ := NewOutboxRelay(table, broker, 10).RunOnce(); !slices.Equal(sent, []int64{3}) {
		t.Errorf("after the unpark sent %v, want [3]: the dead letter is not retried", sent)
	}
	want := []string{"order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPaid"}
	if got := consumer.Journal(); !slices.Equal(got, want) {
		t.Errorf("journal %v, want %v: a dead letter means unconfirmed", got, want)
	}
}

func TestWithoutACapAFailingRowIsRetriedForever(t *testing.T) {
	table := tableOf("order-1", "OrderPlaced")
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: Down, 2: Down, 3: Down, 4: Down, 5: Down})
	relay := NewOutboxRelay(table, broker, 10)
	for range 5 {
		if sent, _ := relay.RunOnce(); len(sent) != 0 {
			t.Fatalf("sent %v while the broker is down", sent)
		}
	}
	if sent, err := relay.RunOnce(); !slices.Equal(sent, []int64{1}) || err != nil || len(table.DeadLetters()) != 0 {
		t.Errorf("the sixth run sent %v (%v), %d dead letters; want [1] and none", sent, err, len(table.DeadLetters()))
	}
}

// SPEC's example: two relays, two passes, nothing fails.
func TestTwoRelaysSplitTheOrdersByHash(t *testing.T) {
	table := tableOf("order-1", "OrderPlaced", "order-2", "OrderPlaced", "order-1", "OrderPaid", "order-2", "OrderPaid")
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, nil)
	index := uint32(0)
	sent, _ := runs(t, 4, func(func(DeadLetter)) *OutboxRelay {
		defer func() { index = 1 - index }()
		return NewOutboxRelayWith(table, broker, 10, RelayOptions{Partition: Partition{Index: index, Count: 2}})
	})
	if !slices.EqualFunc(sent, [][]int64{{2, 4}, {1, 3}, {}, {}}, slices.Equal) {
		t.Errorf("sent %v, want [[2 4] [1 3] [] []]", sent)
	}
	if got := consumer.Journal(); got[0] != "order-2 OrderPlaced" || got[3] != "order-1 OrderPaid" {
		t.Errorf("journal %v, want order-2's events, then order-1's", got)
	}
}

// SPEC's example: batch 3, a fetch by heads, Down on attempts 1 and 2.
func TestHeadsLetOtherOrdersPastABlockedOne(t *testing.T) {
	table := tableOf("order-1", "OrderPlaced", "order-1", "OrderPaid", "order-1", "OrderShipped", "order-2", "OrderPlaced")
	var consumer Consumer
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: Down, 2: Down})
	relay := NewOutboxRelayWith(table, broker, 3, RelayOptions{Fetch: Heads})
	sent, _ := runs(t, 3, func(func(DeadLetter)) *OutboxRelay { return relay })
	if !slices.EqualFunc(sent, [][]int64{{}, {1, 4}, {2}}, slices.Equal) {
		t.Errorf("sent %v, want [[] [1 4] [2]]", sent)
	}
}

func TestTheConsumerForgetsAnIDRetentionPassesAfterApplyingIt(t *testing.T) {
	placed := Message{ID: 1, Aggregate: "order-1", Type: "OrderPlaced"}
	consumer := Consumer{Retention: 3}
	for pass, want := range []int{0, 1, 2, 2, 3} { // duplicates after passes 1 to 5
		consumer.Tick()
		consumer.Handle(placed)
		if consumer.Duplicates() != want {
			t.Fatalf("pass %d: %d duplicates, want %d", pass+1, consumer.Duplicates(), want)
		}
	}
	// Applied at pass 1, dropped at 2 and 3 (not a new window), forgotten at
	// 4 and applied again, remembered from pass 4.
	if got := consumer.Journal(); len(got) != 2 {
		t.Errorf("journal %v, want the event twice", got)
	}
	var forever Consumer
	forever.Handle(placed)
	for range 1000 {
		forever.Tick()
	}
	forever.Handle(placed)
	if forever.Duplicates() != 1 {
		t.Errorf("the zero value forgot an id: %d duplicates, want 1", forever.Duplicates())
	}
}

// SPEC's example: retention 1, a lost ack on attempt 1, two passes.
func TestARetentionShorterThanTheRedeliveryAppliesItTwice(t *testing.T) {
	table := NewOutboxTable()
	seed(table)
	consumer := Consumer{Retention: 1}
	broker := NewFlakyBroker(&consumer, map[int64]Failure{1: LostAck})
	var sent [][]int64
	for range 2 {
		consumer.Tick()
		batch, _ := NewOutboxRelay(table, broker, 10).RunOnce()
		sent = append(sent, batch)
	}
	want := []string{"order-1 OrderPlaced", "order-2 OrderPlaced", "order-1 OrderPlaced", "order-1 OrderPaid"}
	if !slices.EqualFunc(sent, [][]int64{{2}, {1, 3}}, slices.Equal) || !slices.Equal(consumer.Journal(), want) || consumer.Duplicates() != 0 {
		t.Errorf("sent %v, journal %v, duplicates %d", sent, consumer.Journal(), consumer.Duplicates())
	}
}

package outbox

import (
	"errors"
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
	if !table.HasUnsent() || len(table.Unsent(10)) != 3 {
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
	batch := table.Unsent(1)
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
	if got := table.Unsent(10); len(got) != 3 {
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
	got := table.Unsent(10)
	if len(got) != 2 || got[0].ID != 1 || got[1].ID != 3 {
		t.Errorf("Unsent = %v, want [1 3]", got)
	}
}

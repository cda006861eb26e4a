package outbox

import (
	"errors"
	"fmt"
)

// Failure is how a scripted publish attempt goes wrong.
type Failure int

const (
	// Down: the broker did not answer; the message was NOT delivered.
	Down Failure = iota + 1
	// LostAck: the message was delivered, but the ack was lost: the publisher
	// sees an error anyway. This is why delivery is at-least-once.
	LostAck
)

func (f Failure) String() string {
	switch f {
	case Down:
		return "broker down"
	case LostAck:
		return "ack lost"
	}
	return fmt.Sprintf("Failure(%d)", int(f))
}

// ErrPublishFailed means no acknowledgement: whether the message arrived is
// unknown to the publisher.
var ErrPublishFailed = errors.New("publish failed")

// Broker is what the relay publishes to.
type Broker interface {
	// Publish hands the message over. An error wrapping ErrPublishFailed
	// means no ack came back: the relay must retry later, although the
	// message may have arrived.
	Publish(m Message) error
}

// FlakyBroker is a fake broker that delivers to the consumer inside Publish
// and fails on scripted attempt numbers, counted from 1 over its whole life.
type FlakyBroker struct {
	consumer *Consumer
	failures map[int64]Failure
	attempts int64
}

// NewFlakyBroker returns a broker delivering to consumer, failing attempt n
// as failures[n] says.
func NewFlakyBroker(consumer *Consumer, failures map[int64]Failure) *FlakyBroker {
	return &FlakyBroker{consumer: consumer, failures: failures}
}

func (b *FlakyBroker) Publish(m Message) error {
	b.attempts++
	failure, scripted := b.failures[b.attempts]
	if failure == Down {
		return fmt.Errorf("%w: %s", ErrPublishFailed, failure)
	}
	b.consumer.Handle(m)
	if scripted {
		return fmt.Errorf("%w: %s", ErrPublishFailed, failure)
	}
	return nil
}

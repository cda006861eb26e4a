// Command demo is the relay as a background process. Its composition root
// reads the batch size, the pass limit and the attempt limit from a config
// file, builds the table, the broker, the delivery service's consumer and
// the relay, and calls RunOnce while the table has unsent rows, at most
// max_passes times; a message over the attempt limit becomes a dead letter,
// and the relay's alert prints it. The call path: process loop -> relay ->
// outbox -> broker -> consumer.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"outbox"
	"outbox/internal/cli"
)

type config struct {
	batchSize, maxPasses int
	// 0 when the key is left out: no attempt limit, so a message that always
	// fails blocks its order forever.
	maxAttempts int
}

// loadConfig reads the process's settings, or says in one line what is wrong
// with the file, naming the key at fault.
func loadConfig(path string) (config, error) {
	var c config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%s: cannot read the file", path)
	}
	var fields map[string]json.RawMessage
	if !json.Valid(data) {
		return c, fmt.Errorf("%s: not valid JSON", path)
	}
	if json.Unmarshal(data, &fields) != nil || fields == nil {
		return c, fmt.Errorf("%s: not a JSON object", path)
	}
	var unknown []string
	for key := range fields {
		if key != "batch_size" && key != "max_passes" && key != "max_attempts" {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown) // a map has no order; the first by name, then
		return c, fmt.Errorf("%s: unknown key %q", path, unknown[0])
	}
	for _, setting := range []struct {
		key      string
		value    *int
		optional bool
	}{
		{"batch_size", &c.batchSize, false},
		{"max_passes", &c.maxPasses, false},
		{"max_attempts", &c.maxAttempts, true}, // left out: no attempt limit
	} {
		raw, ok := fields[setting.key]
		if !ok && !setting.optional {
			return c, fmt.Errorf("%s: %q is missing", path, setting.key)
		}
		// Unmarshal into an int refuses true, "3", 3.5 and 3.0 alike.
		if ok && (json.Unmarshal(raw, setting.value) != nil || *setting.value < 1) {
			return c, fmt.Errorf("%s: %q must be an integer >= 1", path, setting.key)
		}
	}
	return c, nil
}

// narratingBroker wraps the real broker and tells how each attempt went, so
// the transcript shows the pass's story in batch order. It watches the
// delivery service too: when its count of dropped repeats rises during a
// publish, that publish was a redelivery the service recognised.
type narratingBroker struct {
	inner    outbox.Broker
	consumer *outbox.Consumer
	attempts int
	story    map[int64]string
}

func (b *narratingBroker) Publish(m outbox.Message) error {
	b.attempts++
	dropped := b.consumer.Duplicates()
	err := b.inner.Publish(m)
	line := fmt.Sprintf("attempt %d: %s -> published", b.attempts, describe(m))
	if err != nil {
		line = fmt.Sprintf("attempt %d: %s -> %v; %s blocked for this pass",
			b.attempts, describe(m), err, m.Aggregate)
	}
	if b.consumer.Duplicates() > dropped {
		line += fmt.Sprintf("\n    delivery service: #%d already processed, repeat dropped", m.ID)
	}
	b.story[m.ID] = line
	return err
}

func describe(m outbox.Message) string {
	return fmt.Sprintf("#%d %s %s", m.ID, m.Aggregate, m.Type)
}

func idList(ids []int64) string {
	return strings.ReplaceAll(fmt.Sprint(ids), " ", ", ")
}

// attemptsText says "1 attempt", "3 attempts".
func attemptsText(attempts int) string {
	if attempts == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", attempts)
}

// failures is the broker's script: it loses the ack of attempt 1 (message 1,
// which it has delivered) and rejects attempts 6, 7 and 8, which the shared
// config's run spends on message 5: a message that always fails, until the
// attempt limit of 3 gives up on it.
var failures = map[int64]outbox.Failure{
	1: outbox.LostAck, 6: outbox.Down, 7: outbox.Down, 8: outbox.Down,
}

func main() {
	path := "runners/demo.json"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	cfg, err := loadConfig(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}

	table := outbox.NewOutboxTable()
	for _, m := range []outbox.Message{
		{ID: 1, Aggregate: "order-1", Type: "OrderPlaced"},
		{ID: 2, Aggregate: "order-2", Type: "OrderPlaced"},
		{ID: 3, Aggregate: "order-1", Type: "OrderPaid"},
		{ID: 4, Aggregate: "order-2", Type: "OrderPaid"},
		{ID: 5, Aggregate: "order-3", Type: "OrderPlaced"},
	} {
		if err := table.Add(m); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
	}
	var consumer outbox.Consumer // the delivery service, across the broker
	broker := &narratingBroker{
		inner:    outbox.NewFlakyBroker(&consumer, failures),
		consumer: &consumer,
		story:    map[int64]string{},
	}
	// The relay raises the alert; the process says where it goes: here,
	// after the dead letter's attempt in the transcript.
	alerts := map[int64]string{}
	options := outbox.RelayOptions{Alert: func(letter outbox.DeadLetter) {
		alerts[letter.Message.ID] = fmt.Sprintf("dead letter %s after %s",
			describe(letter.Message), attemptsText(letter.Attempts))
	}}
	limit := "no attempt limit"
	if cfg.maxAttempts > 0 {
		options.Cap = &outbox.AttemptCap{MaxAttempts: cfg.maxAttempts, OnExhausted: outbox.Release}
		limit = fmt.Sprintf("at most %d attempts per message", cfg.maxAttempts)
	}
	relay := outbox.NewOutboxRelayWith(table, broker, cfg.batchSize, options)

	fmt.Printf("Outbox relay demo: batch size %d, at most %d passes, %s.\n",
		cfg.batchSize, cfg.maxPasses, limit)
	var rows []string
	for _, m := range table.Unsent(math.MaxInt, outbox.Partition{}, outbox.Rows) {
		rows = append(rows, describe(m))
	}
	fmt.Printf("Outbox: %s.\n", strings.Join(rows, ", "))
	fmt.Println("The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8.")

	passes := 0
	for table.HasUnsent() && passes < cfg.maxPasses {
		passes++
		batch := table.Unsent(cfg.batchSize, outbox.Partition{}, outbox.Rows)
		var ids []int64
		for _, m := range batch {
			ids = append(ids, m.ID)
		}
		fmt.Printf("\nPass %d: batch %s\n", passes, idList(ids))
		sent, err := relay.RunOnce()
		if err := cli.Unexpected(err); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
		for _, m := range batch {
			line, published := broker.story[m.ID]
			if !published {
				line = fmt.Sprintf("skipped %s: %s is blocked", describe(m), m.Aggregate)
			}
			delete(broker.story, m.ID)
			fmt.Printf("  %s\n", line)
			if alert, raised := alerts[m.ID]; raised {
				fmt.Printf("  alert: %s\n", alert)
			}
		}
		fmt.Printf("  sent %s\n", idList(sent))
	}

	if table.HasUnsent() {
		fmt.Println("\nStopped at the pass limit with messages still unsent.")
	} else {
		fmt.Printf("\nOutbox drained after %d passes.\n", passes)
	}
	if letters := table.DeadLetters(); len(letters) > 0 {
		var listed []string
		for _, l := range letters {
			listed = append(listed,
				fmt.Sprintf("%s (%s)", describe(l.Message), attemptsText(l.Attempts)))
		}
		fmt.Printf("Dead letters, for a person to look at: %s.\n", strings.Join(listed, ", "))
	}
	fmt.Println("Consumer journal:")
	for _, entry := range consumer.Journal() {
		fmt.Printf("  %s\n", entry)
	}
	fmt.Printf("Duplicates dropped: %d\n", consumer.Duplicates())
}

// Command demo is the relay as a background process. Its composition root
// reads the batch size and the pass limit from a config file, builds the
// table, the broker, the delivery service's consumer and the relay, and
// calls RunOnce while the table has unsent rows, at most max_passes times.
// The call path: process loop -> relay -> outbox -> broker -> consumer.
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
		if key != "batch_size" && key != "max_passes" {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown) // a map has no order; the first by name, then
		return c, fmt.Errorf("%s: unknown key %q", path, unknown[0])
	}
	for _, key := range []string{"batch_size", "max_passes"} {
		value := &c.batchSize
		if key == "max_passes" {
			value = &c.maxPasses
		}
		raw, ok := fields[key]
		if !ok {
			return c, fmt.Errorf("%s: %q is missing", path, key)
		}
		// Unmarshal into an int refuses true, "3", 3.5 and 3.0 alike.
		if json.Unmarshal(raw, value) != nil || *value < 1 {
			return c, fmt.Errorf("%s: %q must be an integer >= 1", path, key)
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
		line = fmt.Sprintf("attempt %d: %s -> %v; %s blocked for this pass", b.attempts, describe(m), err, m.Aggregate)
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
	} {
		if err := table.Add(m); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
	}
	var consumer outbox.Consumer // the delivery service, across the broker
	broker := &narratingBroker{
		inner:    outbox.NewFlakyBroker(&consumer, map[int64]outbox.Failure{1: outbox.LostAck}),
		consumer: &consumer,
		story:    map[int64]string{},
	}
	relay := outbox.NewOutboxRelay(table, broker, cfg.batchSize)

	fmt.Printf("Outbox relay demo: batch size %d, at most %d passes.\n",
		cfg.batchSize, cfg.maxPasses)
	var rows []string
	for _, m := range table.Unsent(math.MaxInt) {
		rows = append(rows, describe(m))
	}
	fmt.Printf("Outbox: %s.\n", strings.Join(rows, ", "))
	fmt.Println("The broker will lose the ack of attempt 1.")

	passes := 0
	for table.HasUnsent() && passes < cfg.maxPasses {
		passes++
		batch := table.Unsent(cfg.batchSize)
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
		}
		fmt.Printf("  sent %s\n", idList(sent))
	}

	if table.HasUnsent() {
		fmt.Println("\nStopped at the pass limit with messages still unsent.")
	} else {
		fmt.Printf("\nOutbox drained after %d passes.\n", passes)
	}
	fmt.Println("Consumer journal:")
	for _, entry := range consumer.Journal() {
		fmt.Printf("  %s\n", entry)
	}
	fmt.Printf("Duplicates dropped: %d\n", consumer.Duplicates())
}

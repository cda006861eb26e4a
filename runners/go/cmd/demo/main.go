// Command demo runs the relay as a process would: the composition root reads
// the batch size and the pass limit from the shared config, builds the
// table, broker, consumer and relay, and loops RunOnce while rows are
// unsent. It prints the same transcript as every other language's demo.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"outbox"
)

type config struct {
	BatchSize int `json:"batch_size"`
	MaxPasses int `json:"max_passes"`
}

func loadConfig(path string) (config, error) {
	var c config
	file, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer file.Close()
	decoder := json.NewDecoder(file)
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.BatchSize < 1 || c.MaxPasses < 0 {
		return c, fmt.Errorf("%s: batch_size must be at least 1 and max_passes at least 0", path)
	}
	return c, nil
}

// narratingBroker wraps the real broker and remembers how each attempt went,
// so the transcript can tell the pass's story in batch order.
type narratingBroker struct {
	inner    outbox.Broker
	attempts int
	log      map[int64]string
}

func (b *narratingBroker) Publish(m outbox.Message) error {
	b.attempts++
	err := b.inner.Publish(m)
	what := "published"
	if err != nil {
		what = fmt.Sprintf("%v; %s blocked for this pass", err, m.Aggregate)
	}
	b.log[m.ID] = fmt.Sprintf("attempt %d: %s -> %s", b.attempts, describe(m), what)
	return err
}

func describe(m outbox.Message) string {
	return fmt.Sprintf("#%d %s %s", m.ID, m.Aggregate, m.Type)
}

func idList(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ", ") + "]"
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
	var consumer outbox.Consumer
	broker := &narratingBroker{
		inner: outbox.NewFlakyBroker(&consumer, map[int64]outbox.Failure{1: outbox.LostAck}),
		log:   map[int64]string{},
	}
	relay := outbox.NewOutboxRelay(table, broker, cfg.BatchSize)

	fmt.Printf("Outbox relay demo: batch size %d, at most %d passes.\n", cfg.BatchSize, cfg.MaxPasses)
	rows := []string{}
	for _, m := range table.Unsent(math.MaxInt) {
		rows = append(rows, describe(m))
	}
	fmt.Printf("Outbox: %s.\n", strings.Join(rows, ", "))
	fmt.Println("The broker will lose the ack of attempt 1.")

	passes := 0
	for table.HasUnsent() && passes < cfg.MaxPasses {
		passes++
		batch := table.Unsent(cfg.BatchSize)
		ids := make([]int64, len(batch))
		for i, m := range batch {
			ids[i] = m.ID
		}
		fmt.Printf("\nPass %d: batch %s\n", passes, idList(ids))
		sent, err := relay.RunOnce()
		if err := outbox.Unexpected(err); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			os.Exit(1)
		}
		for _, m := range batch {
			if line, ok := broker.log[m.ID]; ok {
				fmt.Printf("  %s\n", line)
				delete(broker.log, m.ID)
			} else {
				fmt.Printf("  skipped %s: %s is blocked\n", describe(m), m.Aggregate)
			}
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

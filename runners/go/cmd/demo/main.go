// Command demo runs the relay as a process would: the composition root reads
// the batch size and the pass limit from the shared config, builds the
// table, broker, consumer and relay, and loops RunOnce while rows are
// unsent. It prints the same transcript as every other language's demo.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"outbox"
)

// limit is the largest batch size and pass limit. Every port reads JSON
// numbers as doubles or 64-bit integers and holds 0..limit exactly, so they
// all reject the same configs.
const limit = 1_000_000

type config struct {
	batchSize int
	maxPasses int
}

// loadConfig reads and checks the config. The error's first line is the
// same in every port's demo; a second line, if any, is Go's own reason.
func loadConfig(path string) (config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return config{}, fmt.Errorf("%s: cannot read the file\n  %w", path, err)
	}
	// Go's decoder would take invalid UTF-8 in a string; the others refuse it.
	if !utf8.Valid(data) {
		return config{}, fmt.Errorf("%s: not valid JSON\n  invalid UTF-8", path)
	}
	// Unmarshal, not a Decoder: a Decoder stops after the first value.
	var value any
	if err := json.Unmarshal(data, &value); err != nil {
		return config{}, fmt.Errorf("%s: not valid JSON\n  %w", path, err)
	}
	c, err := parseConfig(value)
	if err != nil {
		return config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// parseConfig checks a parsed config: unknown keys first, then each key.
func parseConfig(value any) (config, error) {
	fields, ok := value.(map[string]any)
	if !ok {
		return config{}, fmt.Errorf("want a JSON object with `batch_size` and `max_passes`, not %s", kind(value))
	}
	var unknown []string
	for key := range fields {
		if key != "batch_size" && key != "max_passes" {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) > 0 {
		// Sorted, because a map has no order and not every port keeps the file's.
		sort.Strings(unknown)
		for i, key := range unknown {
			unknown[i] = quote(key)
		}
		plural := "s"
		if len(unknown) == 1 {
			plural = ""
		}
		return config{}, fmt.Errorf("unknown key%s %s; the keys are `batch_size` and `max_passes`",
			plural, strings.Join(unknown, ", "))
	}
	batchSize, err := integer(fields, "batch_size", 1)
	if err != nil {
		return config{}, err
	}
	maxPasses, err := integer(fields, "max_passes", 0)
	if err != nil {
		return config{}, err
	}
	return config{batchSize, maxPasses}, nil
}

// integer returns the value of key, an integer from lowest to limit. A number
// counts by its value, so 3.0 is 3: JavaScript cannot tell them apart.
func integer(fields map[string]any, key string, lowest int) (int, error) {
	value, ok := fields[key]
	if !ok {
		return 0, fmt.Errorf("`%s` is missing", key)
	}
	rule := fmt.Sprintf("`%s` must be an integer from %d to %d", key, lowest, limit)
	number, ok := value.(float64)
	switch {
	case !ok:
		return 0, fmt.Errorf("%s, not %s", rule, kind(value))
	case number != math.Trunc(number):
		return 0, fmt.Errorf("%s, not a fraction", rule)
	case number < float64(lowest) || number > limit:
		return 0, errors.New(rule)
	}
	return int(number), nil
}

// kind names a JSON value's type as the error messages do.
func kind(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// quote writes a key as a JSON string, leaving <, > and & alone as the
// other ports do.
func quote(key string) string {
	var b strings.Builder
	encoder := json.NewEncoder(&b)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(key); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// narratingBroker wraps the real broker and remembers how each attempt went,
// so the transcript can tell the pass's story in batch order. It watches the
// delivery service too: when its count of dropped repeats rises during a
// publish, that publish was a redelivery the service recognised.
type narratingBroker struct {
	inner    outbox.Broker
	consumer *outbox.Consumer
	attempts int
	log      map[int64]string
}

func (b *narratingBroker) Publish(m outbox.Message) error {
	b.attempts++
	dropped := b.consumer.Duplicates()
	err := b.inner.Publish(m)
	story := fmt.Sprintf("attempt %d: %s -> published", b.attempts, describe(m))
	if err != nil {
		story = fmt.Sprintf("attempt %d: %s -> %v; %s blocked for this pass", b.attempts, describe(m), err, m.Aggregate)
	}
	if b.consumer.Duplicates() > dropped {
		story += fmt.Sprintf("\n    delivery service: #%d already processed, repeat dropped", m.ID)
	}
	b.log[m.ID] = story
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
		inner:    outbox.NewFlakyBroker(&consumer, map[int64]outbox.Failure{1: outbox.LostAck}),
		consumer: &consumer,
		log:      map[int64]string{},
	}
	relay := outbox.NewOutboxRelay(table, broker, cfg.batchSize)

	fmt.Printf("Outbox relay demo: batch size %d, at most %d passes.\n", cfg.batchSize, cfg.maxPasses)
	rows := []string{}
	for _, m := range table.Unsent(math.MaxInt) {
		rows = append(rows, describe(m))
	}
	fmt.Printf("Outbox: %s.\n", strings.Join(rows, ", "))
	fmt.Println("The broker will lose the ack of attempt 1.")

	passes := 0
	for table.HasUnsent() && passes < cfg.maxPasses {
		passes++
		batch := table.Unsent(cfg.batchSize)
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

// Command runner drives the Go port over the parity harness's protocol
// (version 1): one request per stdin line in, one answer per stdout line
// out, flushed at once.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"outbox"
	"outbox/internal/cli"
)

// request is a case request. Kind and name are any, so that a value of the
// wrong type is refused by what it is, not by a decoding error.
type request struct {
	Kind      any             `json:"kind"`
	Version   json.RawMessage `json:"version"`
	Name      any             `json:"name"`
	BatchSize int             `json:"batch_size"`
	Messages  []wireMessage   `json:"messages"`

	Failures        map[string]string `json:"failures"`
	Passes          int               `json:"passes"`
	RestartEachPass bool              `json:"restart_each_pass"`

	// The features' fields (SPEC.md, "The practice's limits, played"), each
	// absent (its zero value, or nil) unless the case has it.
	MaxAttempts *int         `json:"max_attempts"`
	OnExhausted string       `json:"on_exhausted"`
	Unpark      []wireUnpark `json:"unpark"`
	Retention   int          `json:"retention"`
	Relays      int          `json:"relays"`
	Schedule    [][]int      `json:"schedule"`
	Fetch       string       `json:"fetch"`
}

type wireUnpark struct {
	Aggregate string `json:"aggregate"`
	AfterPass int    `json:"after_pass"`
}

type wireMessage struct {
	ID               int64  `json:"id"`
	Aggregate        string `json:"aggregate"`
	Type             string `json:"type"`
	WrittenAfterPass int    `json:"written_after_pass"`
}

type caseResult struct {
	Name       string    `json:"name"`
	Sent       [][]int64 `json:"sent"`
	Journal    []string  `json:"journal"`
	Duplicates int       `json:"duplicates"`
	// Answered exactly when the case has max_attempts: a pointer, so that
	// no runs at all is [] and no cap is no key.
	DeadLetters *[][]int64 `json:"dead_letters,omitempty"`
}

type errorResult struct {
	Name  any    `json:"name"`
	Error string `json:"error"`
}

// The wire's names of the parts' values: the runner's business, not the
// port's. An absent field is "", its default.
var (
	failureKinds = map[string]outbox.Failure{"down": outbox.Down, "lost_ack": outbox.LostAck}
	fetchModes   = map[string]outbox.Fetch{"": outbox.Rows, "rows": outbox.Rows, "heads": outbox.Heads}
	exhaustions  = map[string]outbox.OnExhausted{
		"": outbox.Release, "release": outbox.Release, "park": outbox.Park,
	}
)

// runCase adds the rows written before the first pass, then after each pass
// k the rows written after it, through the table's ordinary Add.
func runCase(req request, name string) (caseResult, error) {
	rows := req.Messages
	failures := map[int64]outbox.Failure{}
	for attempt, kind := range req.Failures {
		n, err := strconv.ParseInt(attempt, 10, 64)
		if err != nil {
			return caseResult{}, fmt.Errorf("failure key %q: %w", attempt, err)
		}
		failure, ok := failureKinds[kind]
		if !ok {
			return caseResult{}, fmt.Errorf("unknown failure kind: %q (attempt %s)", kind, attempt)
		}
		failures[n] = failure
	}
	// Rows come in the order they are written (written_after_pass never
	// decreases), so the rows of each pass boundary are the next ones.
	table := outbox.NewOutboxTable()
	next := 0
	write := func(pass int) error {
		for ; next < len(rows) && rows[next].WrittenAfterPass <= pass; next++ {
			m := rows[next]
			if err := table.Add(outbox.Message{ID: m.ID, Aggregate: m.Aggregate, Type: m.Type}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(0); err != nil {
		return caseResult{}, err
	}
	options, err := relayOptions(req)
	if err != nil {
		return caseResult{}, err
	}
	relays := max(req.Relays, 1)
	everyRelay := make([]int, relays)
	for r := range everyRelay {
		everyRelay[r] = r
	}
	unparks := map[int][]string{}
	for _, u := range req.Unpark {
		unparks[u.AfterPass] = append(unparks[u.AfterPass], u.Aggregate)
	}
	consumer := outbox.Consumer{Retention: req.Retention}
	broker := outbox.NewFlakyBroker(&consumer, failures)
	var dead []int64 // the ids the current run dead-letters
	options.Alert = func(letter outbox.DeadLetter) { dead = append(dead, letter.Message.ID) }
	relay := make([]*outbox.OutboxRelay, relays)
	res := caseResult{Name: name, Sent: [][]int64{}}
	deadLetters := [][]int64{}
	for pass := 1; pass <= req.Passes; pass++ {
		if req.RestartEachPass {
			clear(relay)
		}
		consumer.Tick()
		runs := everyRelay
		if req.Schedule != nil {
			runs = req.Schedule[pass-1]
		}
		for _, r := range runs {
			// Built on its first run (after a restart, its first run of the
			// pass), so that a schedule's idle relays cost nothing.
			if relay[r] == nil {
				options.Partition = outbox.Partition{Index: uint32(r), Count: uint32(relays)}
				relay[r] = outbox.NewOutboxRelayWith(table, broker, req.BatchSize, options)
			}
			dead = []int64{}
			sent, err := relay[r].RunOnce()
			if err := cli.Unexpected(err); err != nil {
				return caseResult{}, fmt.Errorf("pass %d, relay %d: %w", pass, r, err)
			}
			res.Sent = append(res.Sent, sent)
			deadLetters = append(deadLetters, dead)
		}
		if err := write(pass); err != nil {
			return caseResult{}, fmt.Errorf("after pass %d: %w", pass, err)
		}
		for _, aggregate := range unparks[pass] {
			table.Unpark(aggregate)
		}
	}
	if req.MaxAttempts != nil {
		res.DeadLetters = &deadLetters
	}
	res.Journal = consumer.Journal()
	res.Duplicates = consumer.Duplicates()
	return res, nil
}

// relayOptions are the case's fetch mode and attempt cap; the runner adds
// each relay's partition and the alert.
func relayOptions(req request) (outbox.RelayOptions, error) {
	fetch, ok := fetchModes[req.Fetch]
	if !ok {
		return outbox.RelayOptions{}, fmt.Errorf("unknown fetch: %q", req.Fetch)
	}
	onExhausted, ok := exhaustions[req.OnExhausted]
	if !ok {
		return outbox.RelayOptions{}, fmt.Errorf("unknown on_exhausted: %q", req.OnExhausted)
	}
	options := outbox.RelayOptions{Fetch: fetch}
	if req.MaxAttempts != nil {
		options.Cap = &outbox.AttemptCap{MaxAttempts: *req.MaxAttempts, OnExhausted: onExhausted}
	}
	return options, nil
}

// describe shows a request field in an error: its JSON, or that it is missing.
func describe(v any) string {
	if v == nil {
		return "missing"
	}
	text, _ := json.Marshal(v)
	return string(text)
}

func answer(line []byte) (res any) {
	var req request
	err := json.Unmarshal(line, &req)
	name, named := req.Name.(string)
	var errorName any // null unless the request's name is a string
	if named {
		errorName = name
	}
	fail := func(err error) any {
		return errorResult{Name: errorName, Error: err.Error()}
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	// Decoding goes on past a field of the wrong type, so kind and version
	// are known even then, and are refused first.
	if req.Kind != "case" {
		return fail(fmt.Errorf(`unknown request kind: %s (want "case")`, describe(req.Kind)))
	}
	if string(req.Version) != "1" {
		version := "missing"
		if req.Version != nil {
			version = string(req.Version)
		}
		return fail(fmt.Errorf("unsupported protocol version: %s (want 1)", version))
	}
	if err != nil {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	defer func() {
		if p := recover(); p != nil {
			res = fail(fmt.Errorf("panic: %v", p))
		}
	}()
	res, err = runCase(req, name)
	if err != nil {
		return fail(err)
	}
	return res
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := encoder.Encode(answer(line)); err != nil {
				fmt.Fprintln(os.Stderr, "runner:", err)
				os.Exit(1)
			}
			if err := out.Flush(); err != nil {
				fmt.Fprintln(os.Stderr, "runner:", err)
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
	}
}

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
	"time"

	"outbox"
	"outbox/internal/cli"
)

// request holds either kind of request; a field the kind does not use stays
// zero. messages is a case's rows but a bench's row count, so it waits as
// raw JSON until the kind is known. Kind and name are any, so that a value
// of the wrong type is refused by what it is, not by a decoding error.
type request struct {
	Kind      any             `json:"kind"`
	Version   json.RawMessage `json:"version"`
	Name      any             `json:"name"`
	BatchSize int             `json:"batch_size"`
	Messages  json.RawMessage `json:"messages"`

	Failures        map[string]string `json:"failures"`
	Passes          int               `json:"passes"`
	RestartEachPass bool              `json:"restart_each_pass"`

	Aggregates   int64 `json:"aggregates"`
	LostAckEvery int64 `json:"lost_ack_every"`
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
}

type benchResult struct {
	Name       string `json:"name"`
	ElapsedNs  int64  `json:"elapsed_ns"`
	Sent       int    `json:"sent"`
	Duplicates int    `json:"duplicates"`
	Passes     int    `json:"passes"`
}

type errorResult struct {
	Name  any    `json:"name"`
	Error string `json:"error"`
}

var failureKinds = map[string]outbox.Failure{"down": outbox.Down, "lost_ack": outbox.LostAck}

// runCase adds the rows written before the first pass, then after each pass
// k the rows written after it, through the table's ordinary Add.
func runCase(req request, name string) (caseResult, error) {
	var rows []wireMessage
	if err := json.Unmarshal(req.Messages, &rows); err != nil {
		return caseResult{}, fmt.Errorf("messages: %w", err)
	}
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
	var consumer outbox.Consumer
	broker := outbox.NewFlakyBroker(&consumer, failures)
	var relay *outbox.OutboxRelay
	res := caseResult{Name: name, Sent: make([][]int64, 0, req.Passes)}
	for pass := 1; pass <= req.Passes; pass++ {
		if req.RestartEachPass || pass == 1 {
			relay = outbox.NewOutboxRelay(table, broker, req.BatchSize)
		}
		sent, err := relay.RunOnce()
		if err := cli.Unexpected(err); err != nil {
			return caseResult{}, fmt.Errorf("pass %d: %w", pass, err)
		}
		res.Sent = append(res.Sent, sent)
		if err := write(pass); err != nil {
			return caseResult{}, fmt.Errorf("after pass %d: %w", pass, err)
		}
	}
	res.Journal = consumer.Journal()
	res.Duplicates = consumer.Duplicates()
	return res, nil
}

// runBench builds the bench table (messages rows over aggregates orders,
// every lostAckEvery-th attempt losing its ack) and drains it, timing only
// the relay's passes.
func runBench(req request, name string) (benchResult, error) {
	var messages int64
	if err := json.Unmarshal(req.Messages, &messages); err != nil {
		return benchResult{}, fmt.Errorf("messages: %w", err)
	}
	table := outbox.NewOutboxTable()
	for id := int64(1); id <= messages; id++ {
		m := outbox.Message{ID: id, Aggregate: fmt.Sprintf("order-%d", (id-1)%req.Aggregates+1), Type: "Event"}
		if err := table.Add(m); err != nil {
			return benchResult{}, err
		}
	}
	every := max(req.LostAckEvery, 2)
	failures := map[int64]outbox.Failure{}
	for k := int64(1); k <= (2*messages+2)/every; k++ {
		failures[k*every] = outbox.LostAck
	}
	var consumer outbox.Consumer
	relay := outbox.NewOutboxRelay(table, outbox.NewFlakyBroker(&consumer, failures), req.BatchSize)
	res := benchResult{Name: name}
	started := time.Now()
	for {
		sent, _ := relay.RunOnce()
		if len(sent) == 0 {
			break
		}
		res.Sent += len(sent)
		res.Passes++
	}
	res.ElapsedNs = time.Since(started).Nanoseconds()
	res.Duplicates = consumer.Duplicates()
	return res, nil
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
	if req.Kind != "case" && req.Kind != "bench" {
		return fail(fmt.Errorf(`unknown request kind: %s (want "case" or "bench")`, describe(req.Kind)))
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
	if req.Kind == "bench" {
		res, err = runBench(req, name)
	} else {
		res, err = runCase(req, name)
	}
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

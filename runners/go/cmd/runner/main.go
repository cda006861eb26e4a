// Command runner drives the Go port over the parity harness's protocol: one
// case per stdin line in, one result per stdout line out, flushed at once.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"outbox"
)

type request struct {
	Name      string `json:"name"`
	BatchSize int    `json:"batch_size"`
	Messages  []struct {
		ID        int64  `json:"id"`
		Aggregate string `json:"aggregate"`
		Type      string `json:"type"`
	} `json:"messages"`
	Failures        map[string]string `json:"failures"`
	Passes          int               `json:"passes"`
	RestartEachPass bool              `json:"restart_each_pass"`
}

type result struct {
	Name       string    `json:"name"`
	Sent       [][]int64 `json:"sent"`
	Journal    []string  `json:"journal"`
	Duplicates int       `json:"duplicates"`
}

// benchRequest asks the runner to build a table itself (messages rows over
// aggregates orders, every lostAckEvery-th attempt losing its ack) and
// drain it, timing only the relay's passes.
type benchRequest struct {
	Name  string `json:"name"`
	Bench *struct {
		Messages     int64 `json:"messages"`
		Aggregates   int64 `json:"aggregates"`
		BatchSize    int   `json:"batch_size"`
		LostAckEvery int64 `json:"lost_ack_every"`
	} `json:"bench"`
}

type benchResult struct {
	Name       string `json:"name"`
	ElapsedNs  int64  `json:"elapsed_ns"`
	Sent       int    `json:"sent"`
	Duplicates int    `json:"duplicates"`
	Passes     int    `json:"passes"`
}

func runBench(req benchRequest) benchResult {
	b := req.Bench
	table := outbox.NewOutboxTable()
	for id := int64(1); id <= b.Messages; id++ {
		// Ids 1, 2, 3... increase, so Add cannot refuse them.
		_ = table.Add(outbox.Message{ID: id, Aggregate: fmt.Sprintf("order-%d", (id-1)%b.Aggregates+1), Type: "Event"})
	}
	every := max(b.LostAckEvery, 2)
	failures := map[int64]outbox.Failure{}
	for k := int64(1); k <= (2*b.Messages+2)/every; k++ {
		failures[k*every] = outbox.LostAck
	}
	var consumer outbox.Consumer
	relay := outbox.NewOutboxRelay(table, outbox.NewFlakyBroker(&consumer, failures), b.BatchSize)
	res := benchResult{Name: req.Name}
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
	return res
}

type errorResult struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

var failureKinds = map[string]outbox.Failure{"down": outbox.Down, "lost_ack": outbox.LostAck}

func run(req request) (res result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	table := outbox.NewOutboxTable()
	for _, m := range req.Messages {
		if err := table.Add(outbox.Message{ID: m.ID, Aggregate: m.Aggregate, Type: m.Type}); err != nil {
			return res, err
		}
	}
	failures := map[int64]outbox.Failure{}
	for attempt, kind := range req.Failures {
		n, err := strconv.ParseInt(attempt, 10, 64)
		if err != nil {
			return res, fmt.Errorf("failure key %q: %w", attempt, err)
		}
		failure, ok := failureKinds[kind]
		if !ok {
			return res, fmt.Errorf("unknown failure %q", kind)
		}
		failures[n] = failure
	}
	var consumer outbox.Consumer
	broker := outbox.NewFlakyBroker(&consumer, failures)
	relay := outbox.NewOutboxRelay(table, broker, req.BatchSize)
	res = result{Name: req.Name, Sent: make([][]int64, 0, req.Passes)}
	for pass := 0; pass < req.Passes; pass++ {
		if req.RestartEachPass {
			relay = outbox.NewOutboxRelay(table, broker, req.BatchSize)
		}
		sent, err := relay.RunOnce()
		if err := outbox.Unexpected(err); err != nil {
			return res, fmt.Errorf("pass %d: %w", pass+1, err)
		}
		res.Sent = append(res.Sent, sent)
	}
	res.Journal = consumer.Journal()
	res.Duplicates = consumer.Duplicates()
	return res, nil
}

func answer(line []byte) any {
	var bench benchRequest
	if json.Unmarshal(line, &bench) == nil && bench.Bench != nil {
		return runBench(bench)
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return errorResult{Name: req.Name, Error: "bad request: " + err.Error()}
	}
	res, err := run(req)
	if err != nil {
		return errorResult{Name: req.Name, Error: err.Error()}
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

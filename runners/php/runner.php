<?php

declare(strict_types=1);

// Drives the PHP port over the parity harness's protocol: one case per stdin
// line in, one result per stdout line out, flushed at once. Stdout carries
// results only, so errors go to stderr, and the memory limit fits a
// 10^6-message case. The objects form no cycles, so the cycle collector only
// costs time (seconds on a 10^6-message case) and is switched off.

ini_set('display_errors', 'stderr');
ini_set('memory_limit', '4G');
gc_disable();

require __DIR__ . '/autoload.php';

use Outbox\Failure;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;

/**
 * @param array<string, mixed> $case
 * @return array<string, mixed>
 */
function runCase(array $case): array
{
    $table = new OutboxTable();
    foreach ($case['messages'] as $m) {
        $table->add(new Message($m['id'], $m['aggregate'], $m['type']));
    }
    $failures = [];
    foreach ($case['failures'] as $attempt => $kind) {
        $failures[(int) $attempt] = match ($kind) {
            'down' => Failure::Down,
            'lost_ack' => Failure::LostAck,
        };
    }
    $consumer = new IdempotentConsumer();
    $broker = new FlakyBroker($consumer, $failures);
    $relay = new OutboxRelay($table, $broker, $case['batch_size']);
    $sent = [];
    for ($pass = 0; $pass < $case['passes']; $pass++) {
        if ($case['restart_each_pass'] ?? false) {
            $relay = new OutboxRelay($table, $broker, $case['batch_size']);
        }
        $sent[] = $relay->runOnce();
    }
    return [
        'name' => $case['name'],
        'sent' => $sent,
        'journal' => $consumer->journal(),
        'duplicates' => $consumer->duplicates(),
    ];
}

/**
 * Builds a table (messages rows over aggregates orders, every
 * lost_ack_every-th attempt losing its ack) and drains it, timing only the
 * relay's passes.
 *
 * @param array{messages: int, aggregates: int, batch_size: int, lost_ack_every: int} $bench
 * @return array<string, mixed>
 */
function runBench(string $name, array $bench): array
{
    $table = new OutboxTable();
    for ($id = 1; $id <= $bench['messages']; $id++) {
        $table->add(new Message($id, 'order-' . (($id - 1) % $bench['aggregates'] + 1), 'Event'));
    }
    $every = max($bench['lost_ack_every'], 2);
    $failures = [];
    for ($k = 1; $k <= intdiv(2 * $bench['messages'] + 2, $every); $k++) {
        $failures[$k * $every] = Failure::LostAck;
    }
    $consumer = new IdempotentConsumer();
    $relay = new OutboxRelay($table, new FlakyBroker($consumer, $failures), $bench['batch_size']);
    $sent = 0;
    $passes = 0;
    $started = hrtime(true);
    while (($ids = $relay->runOnce()) !== []) {
        $sent += count($ids);
        $passes++;
    }
    $elapsed = hrtime(true) - $started;
    return ['name' => $name, 'elapsed_ns' => $elapsed, 'sent' => $sent, 'duplicates' => $consumer->duplicates(), 'passes' => $passes];
}

while (($line = fgets(STDIN)) !== false) {
    $name = null;
    try {
        $case = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
        $name = $case['name'];
        $answer = isset($case['bench']) ? runBench($name, $case['bench']) : runCase($case);
    } catch (Throwable $error) {
        $answer = ['name' => $name, 'error' => $error::class . ': ' . $error->getMessage()];
    }
    fwrite(STDOUT, json_encode($answer, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
    fflush(STDOUT);
}

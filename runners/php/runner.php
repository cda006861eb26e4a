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

while (($line = fgets(STDIN)) !== false) {
    $name = null;
    try {
        $case = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
        $name = $case['name'];
        $answer = runCase($case);
    } catch (Throwable $error) {
        $answer = ['name' => $name, 'error' => $error::class . ': ' . $error->getMessage()];
    }
    fwrite(STDOUT, json_encode($answer, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
    fflush(STDOUT);
}

<?php

declare(strict_types=1);

// Drives the PHP port over the parity harness's protocol, version 1: one
// request per stdin line in, one answer per stdout line out, flushed at once.
// Stdout carries answers only, so errors go to stderr.

ini_set('display_errors', 'stderr');

require __DIR__ . '/autoload.php';

use Outbox\Failure;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;

/** A request this runner does not take; its text is the whole error answer. */
final class Refused extends RuntimeException
{
}

function describe(mixed $value): string
{
    return $value === null ? 'missing' : json_encode($value, JSON_THROW_ON_ERROR | JSON_PRESERVE_ZERO_FRACTION | JSON_UNESCAPED_SLASHES);
}

/**
 * Adds the rows written before the first pass, then after each pass k the
 * rows written after it, through the table's ordinary add().
 *
 * @param array<string, mixed> $case
 * @return array<string, mixed>
 */
function runCase(array $case): array
{
    $failures = [];
    foreach ($case['failures'] as $attempt => $kind) {
        $failures[(int) $attempt] = match ($kind) {
            'down' => Failure::Down,
            'lost_ack' => Failure::LostAck,
            default => throw new Refused('unknown failure kind: ' . describe($kind) . " (attempt {$attempt})"),
        };
    }
    $writtenAfter = [];
    foreach ($case['messages'] as $m) {
        $writtenAfter[$m['written_after_pass'] ?? 0][] = new Message($m['id'], $m['aggregate'], $m['type']);
    }
    $table = new OutboxTable();
    foreach ($writtenAfter[0] ?? [] as $message) {
        $table->add($message);
    }
    $consumer = new IdempotentConsumer();
    $broker = new FlakyBroker($consumer, $failures);
    $relay = new OutboxRelay($table, $broker, $case['batch_size']);
    $sent = [];
    for ($pass = 1; $pass <= $case['passes']; $pass++) {
        if ($case['restart_each_pass'] ?? false) {
            $relay = new OutboxRelay($table, $broker, $case['batch_size']);
        }
        $sent[] = $relay->runOnce();
        foreach ($writtenAfter[$pass] ?? [] as $message) {
            $table->add($message);
        }
    }
    return [
        'name' => $case['name'],
        'sent' => $sent,
        'journal' => $consumer->journal(),
        'duplicates' => $consumer->duplicates(),
    ];
}

/** @return array<string, mixed> */
function run(mixed $request): array
{
    $fields = is_array($request) ? $request : [];
    if (($fields['kind'] ?? null) !== 'case') {
        throw new Refused('unknown request kind: ' . describe($fields['kind'] ?? null) . ' (want "case")');
    }
    // Strict: 1.0 and true are not the protocol's version 1.
    if (($fields['version'] ?? null) !== 1) {
        throw new Refused('unsupported protocol version: ' . describe($fields['version'] ?? null) . ' (want 1)');
    }
    return runCase($fields);
}

while (($line = fgets(STDIN)) !== false) {
    $request = null;
    try {
        $request = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
        $answer = run($request);
    } catch (Throwable $error) {
        $name = is_array($request) ? ($request['name'] ?? null) : null;
        $answer = [
            'name' => is_string($name) ? $name : null,
            'error' => $error instanceof Refused ? $error->getMessage() : $error::class . ': ' . $error->getMessage(),
        ];
    }
    fwrite(STDOUT, json_encode($answer, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
    fflush(STDOUT);
}

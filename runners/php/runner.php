<?php

declare(strict_types=1);

// Drives the PHP port over the parity harness's protocol, version 1: one
// request per stdin line in, one answer per stdout line out, flushed at once.
// Stdout carries answers only, so errors go to stderr.

ini_set('display_errors', 'stderr');

require __DIR__ . '/autoload.php';

use Outbox\AttemptCap;
use Outbox\DeadLetter;
use Outbox\Failure;
use Outbox\Fetch;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OnExhausted;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;
use Outbox\Partition;

/** A request this runner does not take; its text is the whole error answer. */
final class Refused extends RuntimeException
{
}

function describe(mixed $value): string
{
    return $value === null ? 'missing' : json_encode($value, JSON_THROW_ON_ERROR | JSON_PRESERVE_ZERO_FRACTION | JSON_UNESCAPED_SLASHES);
}

/** @param array<string, mixed> $case */
function cap(array $case): ?AttemptCap
{
    if (!isset($case['max_attempts'])) {
        return null;
    }
    $onExhausted = match ($case['on_exhausted'] ?? 'release') {
        'release' => OnExhausted::Release,
        'park' => OnExhausted::Park,
    };
    return new AttemptCap($case['max_attempts'], $onExhausted);
}

/**
 * Plays a case as SPEC's runner protocol says: the rows written before the
 * first pass, then each pass (the consumer's tick, the runs its schedule
 * lists, the rows written after it, the unparks after it), through the
 * parts' ordinary members. The answer has one list of sent ids per run, and
 * one of dead-lettered ids per run exactly when the case has max_attempts.
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
    $unparkedAfter = [];
    foreach ($case['unpark'] ?? [] as $unpark) {
        $unparkedAfter[$unpark['after_pass']][] = $unpark['aggregate'];
    }
    $table = new OutboxTable();
    foreach ($writtenAfter[0] ?? [] as $message) {
        $table->add($message);
    }
    $consumer = new IdempotentConsumer(retention: $case['retention'] ?? null);
    $broker = new FlakyBroker($consumer, $failures);
    $relays = $case['relays'] ?? 1;
    $everyRelay = range(0, $relays - 1);
    $fetch = match ($case['fetch'] ?? 'rows') {
        'rows' => Fetch::Rows,
        'heads' => Fetch::Heads,
    };
    $cap = cap($case);
    $dead = []; // the ids the current run dead-letters
    $alert = static function (DeadLetter $letter) use (&$dead): void {
        $dead[] = $letter->message->id;
    };
    // Built when first scheduled, and anew each pass with restart_each_pass.
    $relay = [];
    $sent = [];
    $deadLetters = [];
    for ($pass = 1; $pass <= $case['passes']; $pass++) {
        if ($case['restart_each_pass'] ?? false) {
            $relay = [];
        }
        $consumer->tick();
        foreach ($case['schedule'][$pass - 1] ?? $everyRelay as $index) {
            $relay[$index] ??= new OutboxRelay(
                $table,
                $broker,
                $case['batch_size'],
                partition: new Partition($index, $relays),
                fetch: $fetch,
                cap: $cap,
                alert: $alert,
            );
            $dead = [];
            $sent[] = $relay[$index]->runOnce();
            $deadLetters[] = $dead;
        }
        foreach ($writtenAfter[$pass] ?? [] as $message) {
            $table->add($message);
        }
        foreach ($unparkedAfter[$pass] ?? [] as $aggregate) {
            $table->unpark($aggregate);
        }
    }
    $answer = [
        'name' => $case['name'],
        'sent' => $sent,
        'journal' => $consumer->journal(),
        'duplicates' => $consumer->duplicates(),
    ];
    if (isset($case['max_attempts'])) {
        $answer['dead_letters'] = $deadLetters;
    }
    return $answer;
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

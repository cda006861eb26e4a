<?php

declare(strict_types=1);

// The relay as a background process. Its composition root reads the batch
// size, the pass limit and the attempt limit from a config file, builds the
// table, the broker, the delivery service's consumer and the relay, and
// calls runOnce() while the table has unsent rows, at most max_passes
// times; a message over the attempt limit becomes a dead letter, and the
// relay's alert prints it. The call path:
// process loop -> relay -> outbox -> broker -> consumer.

ini_set('display_errors', 'stderr');

require __DIR__ . '/autoload.php';

use Outbox\AttemptCap;
use Outbox\Broker;
use Outbox\DeadLetter;
use Outbox\Failure;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;
use Outbox\PublishFailed;

/** What is wrong with the config file, in one line. */
final class BadConfig extends RuntimeException
{
}

/**
 * Reads the process's settings, or throws BadConfig naming the key at fault.
 * max_attempts may be left out: then there is no attempt limit.
 *
 * @return array{batch_size: int, max_passes: int, max_attempts?: int}
 */
function loadConfig(string $path): array
{
    $text = is_file($path) ? @file_get_contents($path) : false;
    if ($text === false) {
        throw new BadConfig("{$path}: cannot read the file");
    }
    try {
        // Objects, not arrays: [3, 10] and {} must not look alike.
        $value = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
    } catch (JsonException) {
        throw new BadConfig("{$path}: not valid JSON");
    }
    if (!$value instanceof stdClass) {
        throw new BadConfig("{$path}: not a JSON object");
    }
    $fields = get_object_vars($value);
    $keys = ['batch_size', 'max_passes', 'max_attempts'];
    $unknown = array_diff(array_map(strval(...), array_keys($fields)), $keys);
    if ($unknown !== []) {
        sort($unknown, SORT_STRING);
        $key = json_encode($unknown[0], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        throw new BadConfig("{$path}: unknown key {$key}");
    }
    $required = ['batch_size' => true, 'max_passes' => true, 'max_attempts' => false];
    foreach ($required as $key => $isRequired) {
        if (!array_key_exists($key, $fields)) {
            if ($isRequired) {
                throw new BadConfig("{$path}: \"{$key}\" is missing");
            }
            continue;
        }
        // is_int: true and 3.0 are not integers here, whatever == says.
        if (!is_int($fields[$key]) || $fields[$key] < 1) {
            throw new BadConfig("{$path}: \"{$key}\" must be an integer >= 1");
        }
    }
    return $fields;
}

/**
 * Wraps the real broker and tells how each attempt went, so the transcript
 * shows the pass's story in batch order. It watches the delivery service too:
 * when its count of dropped repeats rises during a publish, that publish was a
 * redelivery the service recognised.
 */
final class NarratingBroker implements Broker
{
    private int $attempts = 0;
    /** @var array<int, string> */
    public array $story = [];

    public function __construct(
        private readonly Broker $inner,
        private readonly IdempotentConsumer $consumer,
    ) {
    }

    public function publish(Message $message): void
    {
        $this->attempts++;
        $line = "attempt {$this->attempts}: " . describe($message) . ' -> ';
        $dropped = $this->consumer->duplicates();
        try {
            $this->inner->publish($message);
            $line .= 'published';
        } catch (PublishFailed $failed) {
            $line .= $failed->getMessage() . "; {$message->aggregate} blocked for this pass";
            throw $failed;
        } finally {
            if ($this->consumer->duplicates() > $dropped) {
                $line .= "\n    delivery service: #{$message->id} already processed,"
                    . ' repeat dropped';
            }
            $this->story[$message->id] = $line;
        }
    }
}

function describe(Message $message): string
{
    return "#{$message->id} {$message->aggregate} {$message->type}";
}

/** "1 attempt", "3 attempts". */
function attempts(int $attempts): string
{
    return $attempts === 1 ? '1 attempt' : "{$attempts} attempts";
}

/** @param list<int> $ids */
function idList(array $ids): string
{
    return '[' . implode(', ', $ids) . ']';
}

/** @param list<string> $argv */
function main(array $argv): int
{
    try {
        $config = loadConfig($argv[1] ?? __DIR__ . '/../demo.json');
    } catch (BadConfig $error) {
        fwrite(STDERR, "demo: {$error->getMessage()}\n");
        return 2;
    }
    ['batch_size' => $batchSize, 'max_passes' => $maxPasses] = $config;
    $maxAttempts = $config['max_attempts'] ?? null;

    $table = new OutboxTable();
    $table->add(new Message(1, 'order-1', 'OrderPlaced'));
    $table->add(new Message(2, 'order-2', 'OrderPlaced'));
    $table->add(new Message(3, 'order-1', 'OrderPaid'));
    $table->add(new Message(4, 'order-2', 'OrderPaid'));
    $table->add(new Message(5, 'order-3', 'OrderPlaced'));
    $consumer = new IdempotentConsumer(); // the delivery service, across the broker
    // Attempt 1 is message 1's, which the broker delivers; on the shared
    // config, attempts 6 to 8 are message 5's, which always fails.
    $failures = [1 => Failure::LostAck, 6 => Failure::Down, 7 => Failure::Down, 8 => Failure::Down];
    $broker = new NarratingBroker(new FlakyBroker($consumer, $failures), $consumer);
    // The relay raises the alert; the process says where it goes: here,
    // under the dead letter's attempt in the transcript.
    $alerts = [];
    $alert = static function (DeadLetter $letter) use (&$alerts): void {
        $alerts[$letter->message->id] = 'dead letter ' . describe($letter->message)
            . ' after ' . attempts($letter->attempts);
    };
    $cap = $maxAttempts === null ? null : new AttemptCap($maxAttempts);
    $relay = new OutboxRelay($table, $broker, $batchSize, cap: $cap, alert: $alert);

    $limit = $maxAttempts === null
        ? 'no attempt limit'
        : "at most {$maxAttempts} attempts per message";
    echo "Outbox relay demo: batch size {$batchSize}, at most {$maxPasses} passes, {$limit}.\n";
    echo 'Outbox: ' . implode(', ', array_map(describe(...), $table->unsent(PHP_INT_MAX))) . ".\n";
    echo "The broker will lose the ack of attempt 1 and reject attempts 6, 7 and 8.\n";

    $passes = 0;
    while ($table->hasUnsent() && $passes < $maxPasses) {
        $passes++;
        $batch = $table->unsent($batchSize);
        echo "\nPass {$passes}: batch "
            . idList(array_map(static fn (Message $m): int => $m->id, $batch)) . "\n";
        $alerts = [];
        $sent = $relay->runOnce();
        foreach ($batch as $message) {
            $line = $broker->story[$message->id]
                ?? 'skipped ' . describe($message) . ": {$message->aggregate} is blocked";
            unset($broker->story[$message->id]);
            echo "  {$line}\n";
            if (isset($alerts[$message->id])) {
                echo "  alert: {$alerts[$message->id]}\n";
            }
        }
        echo '  sent ' . idList($sent) . "\n";
    }

    echo $table->hasUnsent()
        ? "\nStopped at the pass limit with messages still unsent.\n"
        : "\nOutbox drained after {$passes} passes.\n";
    if ($table->deadLetters() !== []) {
        $letters = array_map(
            static fn (DeadLetter $l): string =>
                describe($l->message) . ' (' . attempts($l->attempts) . ')',
            $table->deadLetters(),
        );
        echo 'Dead letters, for a person to look at: ' . implode(', ', $letters) . ".\n";
    }
    echo "Consumer journal:\n";
    foreach ($consumer->journal() as $entry) {
        echo "  {$entry}\n";
    }
    echo "Duplicates dropped: {$consumer->duplicates()}\n";
    return 0;
}

// Run as a script; the unit tests require this file for loadConfig().
if (get_included_files()[0] === __FILE__) {
    exit(main($argv));
}

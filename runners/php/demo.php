<?php

declare(strict_types=1);

// The relay as a background process. Its composition root reads the batch
// size and the pass limit from a config file, builds the table, the broker,
// the delivery service's consumer and the relay, and calls runOnce() while
// the table has unsent rows, at most max_passes times. The call path:
// process loop -> relay -> outbox -> broker -> consumer.

ini_set('display_errors', 'stderr');

require __DIR__ . '/autoload.php';

use Outbox\Broker;
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
 *
 * @return array{batch_size: int, max_passes: int}
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
    $unknown = array_diff(array_map(strval(...), array_keys($fields)), ['batch_size', 'max_passes']);
    if ($unknown !== []) {
        sort($unknown, SORT_STRING);
        throw new BadConfig("{$path}: unknown key " . json_encode($unknown[0], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
    }
    foreach (['batch_size', 'max_passes'] as $key) {
        if (!array_key_exists($key, $fields)) {
            throw new BadConfig("{$path}: \"{$key}\" is missing");
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

    public function __construct(private readonly Broker $inner, private readonly IdempotentConsumer $consumer)
    {
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
                $line .= "\n    delivery service: #{$message->id} already processed, repeat dropped";
            }
            $this->story[$message->id] = $line;
        }
    }
}

function describe(Message $message): string
{
    return "#{$message->id} {$message->aggregate} {$message->type}";
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
        ['batch_size' => $batchSize, 'max_passes' => $maxPasses] =
            loadConfig($argv[1] ?? __DIR__ . '/../demo.json');
    } catch (BadConfig $error) {
        fwrite(STDERR, "demo: {$error->getMessage()}\n");
        return 2;
    }

    $table = new OutboxTable();
    $table->add(new Message(1, 'order-1', 'OrderPlaced'));
    $table->add(new Message(2, 'order-2', 'OrderPlaced'));
    $table->add(new Message(3, 'order-1', 'OrderPaid'));
    $table->add(new Message(4, 'order-2', 'OrderPaid'));
    $consumer = new IdempotentConsumer(); // the delivery service, across the broker
    $broker = new NarratingBroker(new FlakyBroker($consumer, [1 => Failure::LostAck]), $consumer);
    $relay = new OutboxRelay($table, $broker, $batchSize);

    echo "Outbox relay demo: batch size {$batchSize}, at most {$maxPasses} passes.\n";
    echo 'Outbox: ' . implode(', ', array_map(describe(...), $table->unsent(PHP_INT_MAX))) . ".\n";
    echo "The broker will lose the ack of attempt 1.\n";

    $passes = 0;
    while ($table->hasUnsent() && $passes < $maxPasses) {
        $passes++;
        $batch = $table->unsent($batchSize);
        echo "\nPass {$passes}: batch "
            . idList(array_map(static fn (Message $m): int => $m->id, $batch)) . "\n";
        $sent = $relay->runOnce();
        foreach ($batch as $message) {
            $line = $broker->story[$message->id]
                ?? 'skipped ' . describe($message) . ": {$message->aggregate} is blocked";
            unset($broker->story[$message->id]);
            echo "  {$line}\n";
        }
        echo '  sent ' . idList($sent) . "\n";
    }

    echo $table->hasUnsent()
        ? "\nStopped at the pass limit with messages still unsent.\n"
        : "\nOutbox drained after {$passes} passes.\n";
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

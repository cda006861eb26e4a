<?php

declare(strict_types=1);

// The relay as a process: the composition root reads the batch size and the
// pass limit from the shared config, builds the table, broker, consumer and
// relay, and loops runOnce() while rows are unsent. It prints the same
// transcript as every other language's demo.

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

/**
 * The largest batch size and pass limit. Every port reads JSON numbers as
 * doubles or 64-bit integers and holds 0..LIMIT exactly, so they all reject
 * the same configs.
 */
const LIMIT = 1_000_000;

/** A bad config. The first line is the same in every port's demo; a second line, if any, is PHP's own reason. */
final class BadConfig extends RuntimeException
{
}

final readonly class Config
{
    public function __construct(public int $batchSize, public int $maxPasses)
    {
    }

    public static function load(string $path): self
    {
        // file_get_contents() reads a directory as an empty string, with only a notice.
        $text = is_dir($path) ? false : @file_get_contents($path);
        if ($text === false) {
            $reason = is_dir($path) ? 'is a directory' : (error_get_last()['message'] ?? 'unknown error');
            throw new BadConfig("{$path}: cannot read the file\n  {$reason}");
        }
        try {
            $value = json_decode($text, false, 512, JSON_THROW_ON_ERROR);
        } catch (JsonException $error) {
            throw new BadConfig("{$path}: not valid JSON\n  {$error->getMessage()}");
        }
        // PHP reads a number too large for a float as INF where the other
        // parsers refuse the file; json_encode() refuses INF anywhere in it.
        if (json_encode($value) === false) {
            throw new BadConfig("{$path}: not valid JSON\n  number out of range");
        }
        try {
            return self::fromJson($value);
        } catch (BadConfig $error) {
            throw new BadConfig("{$path}: {$error->getMessage()}");
        }
    }

    /** Checks a parsed config: unknown keys first, then each key. */
    private static function fromJson(mixed $value): self
    {
        if (!$value instanceof stdClass) {
            throw new BadConfig('want a JSON object with `batch_size` and `max_passes`, not ' . kind($value));
        }
        $fields = get_object_vars($value);
        // Keys as strings ("1" comes back as 1), sorted byte by byte, because
        // not every port's parser keeps the file's order.
        $unknown = array_diff(array_map(strval(...), array_keys($fields)), ['batch_size', 'max_passes']);
        if ($unknown !== []) {
            sort($unknown, SORT_STRING);
            $flags = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS;
            $names = implode(', ', array_map(static fn (string $key): string => (string) json_encode($key, $flags), $unknown));
            $plural = count($unknown) === 1 ? '' : 's';
            throw new BadConfig("unknown key{$plural} {$names}; the keys are `batch_size` and `max_passes`");
        }
        return new self(integer($fields, 'batch_size', 1), integer($fields, 'max_passes', 0));
    }
}

/**
 * The value of $key, an integer from $lowest to LIMIT. A number counts by its
 * value, so 3.0 is 3: JavaScript cannot tell them apart.
 *
 * @param array<array-key, mixed> $fields
 */
function integer(array $fields, string $key, int $lowest): int
{
    if (!array_key_exists($key, $fields)) {
        throw new BadConfig("`{$key}` is missing");
    }
    $value = $fields[$key];
    $rule = "`{$key}` must be an integer from {$lowest} to " . LIMIT;
    if (!is_int($value) && !is_float($value)) {
        throw new BadConfig("{$rule}, not " . kind($value));
    }
    if (floor($value) != $value) {
        throw new BadConfig("{$rule}, not a fraction");
    }
    if ($value < $lowest || $value > LIMIT) {
        throw new BadConfig($rule);
    }
    return (int) $value;
}

/** A JSON value's type, as the error messages name it. */
function kind(mixed $value): string
{
    return match (true) {
        $value === null => 'null',
        is_bool($value) => 'a boolean',
        is_int($value), is_float($value) => 'a number',
        is_string($value) => 'a string',
        is_array($value) => 'an array',
        default => 'an object',
    };
}

/**
 * Wraps the real broker and remembers how each attempt went, so the transcript
 * tells the pass's story in batch order. It watches the delivery service too:
 * when its count of dropped repeats rises during a publish, that publish was a
 * redelivery the service recognised.
 */
final class NarratingBroker implements Broker
{
    private int $attempts = 0;
    /** @var array<int, string> */
    public array $log = [];

    public function __construct(private readonly Broker $inner, private readonly IdempotentConsumer $consumer)
    {
    }

    public function publish(Message $message): void
    {
        $this->attempts++;
        $story = "attempt {$this->attempts}: " . describe($message) . ' -> ';
        $dropped = $this->consumer->duplicates();
        try {
            $this->inner->publish($message);
            $story .= 'published';
        } catch (PublishFailed $failed) {
            $story .= $failed->getMessage() . "; {$message->aggregate} blocked for this pass";
            throw $failed;
        } finally {
            if ($this->consumer->duplicates() > $dropped) {
                $story .= "\n    delivery service: #{$message->id} already processed, repeat dropped";
            }
            $this->log[$message->id] = $story;
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

try {
    $config = Config::load($argv[1] ?? __DIR__ . '/../demo.json');
} catch (BadConfig $error) {
    fwrite(STDERR, 'demo: ' . $error->getMessage() . "\n");
    exit(2);
}
$batchSize = $config->batchSize;

$table = new OutboxTable();
$table->add(new Message(1, 'order-1', 'OrderPlaced'));
$table->add(new Message(2, 'order-2', 'OrderPlaced'));
$table->add(new Message(3, 'order-1', 'OrderPaid'));
$table->add(new Message(4, 'order-2', 'OrderPaid'));
$consumer = new IdempotentConsumer();
$broker = new NarratingBroker(new FlakyBroker($consumer, [1 => Failure::LostAck]), $consumer);
$relay = new OutboxRelay($table, $broker, $batchSize);

echo "Outbox relay demo: batch size {$batchSize}, at most {$config->maxPasses} passes.\n";
echo 'Outbox: ' . implode(', ', array_map(describe(...), $table->unsent(PHP_INT_MAX))) . ".\n";
echo "The broker will lose the ack of attempt 1.\n";

$passes = 0;
while ($table->hasUnsent() && $passes < $config->maxPasses) {
    $passes++;
    $batch = $table->unsent($batchSize);
    echo "\nPass {$passes}: batch " . idList(array_map(static fn (Message $m): int => $m->id, $batch)) . "\n";
    $sent = $relay->runOnce();
    foreach ($batch as $message) {
        $line = $broker->log[$message->id] ?? 'skipped ' . describe($message) . ": {$message->aggregate} is blocked";
        unset($broker->log[$message->id]);
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

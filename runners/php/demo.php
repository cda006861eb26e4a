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

/** Wraps the real broker and remembers how each attempt went, so the transcript tells the pass's story in batch order. */
final class NarratingBroker implements Broker
{
    private int $attempts = 0;
    /** @var array<int, string> */
    public array $log = [];

    public function __construct(private readonly Broker $inner)
    {
    }

    public function publish(Message $message): void
    {
        $this->attempts++;
        $line = "attempt {$this->attempts}: " . describe($message) . ' -> ';
        try {
            $this->inner->publish($message);
        } catch (PublishFailed $failed) {
            $this->log[$message->id] = $line . $failed->getMessage() . "; {$message->aggregate} blocked for this pass";
            throw $failed;
        }
        $this->log[$message->id] = $line . 'published';
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

/** @return array{batch_size: int, max_passes: int} */
function loadConfig(string $path): array
{
    $text = @file_get_contents($path);
    if ($text === false) {
        throw new RuntimeException("{$path}: cannot read");
    }
    $config = json_decode($text, true, 512, JSON_THROW_ON_ERROR);
    if (!is_array($config) || array_keys($config) !== ['batch_size', 'max_passes']
        || !is_int($config['batch_size']) || $config['batch_size'] < 1
        || !is_int($config['max_passes']) || $config['max_passes'] < 0) {
        throw new RuntimeException("{$path}: want {\"batch_size\": >= 1, \"max_passes\": >= 0}");
    }
    return $config;
}

try {
    $config = loadConfig($argv[1] ?? __DIR__ . '/../demo.json');
} catch (Throwable $error) {
    fwrite(STDERR, 'demo: ' . $error->getMessage() . "\n");
    exit(2);
}
$batchSize = $config['batch_size'];

$table = new OutboxTable();
$table->add(new Message(1, 'order-1', 'OrderPlaced'));
$table->add(new Message(2, 'order-2', 'OrderPlaced'));
$table->add(new Message(3, 'order-1', 'OrderPaid'));
$table->add(new Message(4, 'order-2', 'OrderPaid'));
$consumer = new IdempotentConsumer();
$broker = new NarratingBroker(new FlakyBroker($consumer, [1 => Failure::LostAck]));
$relay = new OutboxRelay($table, $broker, $batchSize);

echo "Outbox relay demo: batch size {$batchSize}, at most {$config['max_passes']} passes.\n";
echo 'Outbox: ' . implode(', ', array_map(describe(...), $table->unsent(PHP_INT_MAX))) . ".\n";
echo "The broker will lose the ack of attempt 1.\n";

$passes = 0;
while ($table->hasUnsent() && $passes < $config['max_passes']) {
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

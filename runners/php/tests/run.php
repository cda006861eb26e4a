<?php

declare(strict_types=1);

// The PHP idioms the parity table cannot see: the pure enum, the exceptions,
// the copied batch, the table's typed refusal. No Composer, so no PHPUnit:
// each check prints ok or FAIL and the script exits 1 if any failed. Run
// from the repository root:
//   php -n -d display_errors=stderr runners/php/tests/run.php

require __DIR__ . '/../autoload.php';
require __DIR__ . '/../demo.php';

use Outbox\Broker;
use Outbox\Failure;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;
use Outbox\OutOfOrder;
use Outbox\PublishFailed;

$failed = 0;

function check(bool $ok, string $what): void
{
    global $failed;
    echo ($ok ? 'ok   ' : 'FAIL ') . $what . "\n";
    $failed += $ok ? 0 : 1;
}

/** Runs $action and returns what it threw, or null. */
function thrown(callable $action): ?Throwable
{
    try {
        $action();
    } catch (Throwable $error) {
        return $error;
    }
    return null;
}

function seededTable(): OutboxTable
{
    $table = new OutboxTable();
    $table->add(new Message(1, 'order-1', 'OrderPlaced'));
    $table->add(new Message(2, 'order-2', 'OrderPlaced'));
    $table->add(new Message(3, 'order-1', 'OrderPaid'));
    return $table;
}

/** @return list<int> */
function ids(OutboxTable $table): array
{
    return array_map(static fn (Message $m): int => $m->id, $table->unsent(10));
}

// Failure is a pure enum: its cases are compared by identity, not by a value.
check(!(Failure::Down instanceof BackedEnum), 'Failure has no backing value');
$consumer = new IdempotentConsumer();
$error = thrown(static fn () => (new FlakyBroker($consumer, [1 => Failure::Down]))->publish(new Message(1, 'order-1', 'OrderPlaced')));
check($error instanceof PublishFailed && $error->failure === Failure::Down, 'a scripted failure is Failure::Down itself');
check($consumer->journal() === [], 'a message the broker was down for is not delivered');

// unsent() is a copy, a list of the oldest rows: marking rows sent leaves it alone.
$table = seededTable();
$table->markSent(1);
$batch = $table->unsent(1);
$table->markSent(2);
check(array_is_list($batch) && count($batch) === 1 && $batch[0]->id === 2, 'unsent(1) is the oldest unsent row, as a list');
check(ids($table) === [3], 'markSent() takes a row out of later selections');

// The outbox assigns increasing ids; the table refuses any other.
$table = seededTable();
$error = thrown(static fn () => $table->add(new Message(3, 'order-2', 'OrderPaid')));
check($error instanceof OutOfOrder && $error->id === 3 && $error->lastId === 3, 'add refuses a repeated id with OutOfOrder');
check($error?->getMessage() === 'message id 3 is not greater than the last id 3', 'OutOfOrder says which ids');
check(ids($table) === [1, 2, 3], 'a refused row is not added');
foreach ([1, 2, 3] as $id) {
    $table->markSent($id);
}
check(thrown(static fn () => $table->add(new Message(2, 'order-2', 'OrderShipped'))) instanceof OutOfOrder, 'add remembers the last id after the table drained');
$table->add(new Message(4, 'order-2', 'OrderShipped'));
check(ids($table) === [4], 'a row added to a drained table is unsent');

// A failure blocks its order for the rest of the pass.
$consumer = new IdempotentConsumer();
$relay = new OutboxRelay(seededTable(), new FlakyBroker($consumer, [1 => Failure::Down]), 10);
check($relay->runOnce() === [2], "order-1's OrderPaid does not overtake its OrderPlaced");
check($relay->runOnce() === [1, 3], 'the next pass retries the blocked order in order');
check($consumer->journal() === ['order-2 OrderPlaced', 'order-1 OrderPlaced', 'order-1 OrderPaid'], 'the journal keeps each order in order');

// Anything but PublishFailed is a bug, not the broker's weather: it propagates.
$broken = new class () implements Broker {
    public function publish(Message $message): void
    {
        throw new LogicException('disk on fire');
    }
};
$table = seededTable();
check(thrown(static fn () => (new OutboxRelay($table, $broken, 10))->runOnce()) instanceof LogicException, 'the relay rethrows an error that is not PublishFailed');
check(ids($table) === [1, 2, 3], 'nothing is marked sent then');

// The consumer tells a repeat by id only.
$consumer = new IdempotentConsumer();
$placed = new Message(7, 'order-1', 'OrderPlaced');
$consumer->handle($placed);
$consumer->handle($placed);
$consumer->handle(new Message(8, 'order-1', 'OrderPlaced'));
check($consumer->journal() === ['order-1 OrderPlaced', 'order-1 OrderPlaced'], 'the consumer does an identical event with a new id');
check($consumer->duplicates() === 1, 'the consumer drops and counts a repeat');

// Every refusal of SPEC's demo contract, in-process: the demo_config trial
// starts the demo on three of them only.
$path = sys_get_temp_dir() . '/outbox-demo-' . getmypid() . '.json';
foreach ([
    'batch_size = 3' => 'not valid JSON',
    '[3, 10]' => 'not a JSON object',
    '{"batch_size": 3}' => '"max_passes" is missing',
    '{"batch_size": 3, "max_passes": 10, "z": 1}' => 'unknown key "z"',
    '{"batch_size": 3, "max_passes": true}' => '"max_passes" must be an integer >= 1',
    '{"batch_size": 3.5, "max_passes": 10}' => '"batch_size" must be an integer >= 1',
    '{"batch_size": 0, "max_passes": 10}' => '"batch_size" must be an integer >= 1',
    '{"batch_size": "3", "max_passes": 10}' => '"batch_size" must be an integer >= 1',
] as $content => $expected) {
    file_put_contents($path, $content);
    $error = thrown(static fn () => loadConfig($path));
    check($error instanceof BadConfig && $error->getMessage() === "{$path}: {$expected}", "the demo refuses {$content}: {$expected}");
}
unlink($path);
$error = thrown(static fn () => loadConfig($path));
check($error instanceof BadConfig && $error->getMessage() === "{$path}: cannot read the file", 'the demo refuses a missing file');
check(loadConfig(__DIR__ . '/../../demo.json') === ['batch_size' => 3, 'max_passes' => 10], 'the demo reads the shared config');

echo $failed === 0 ? "all checks passed\n" : "{$failed} check(s) failed\n";
exit($failed === 0 ? 0 : 1);

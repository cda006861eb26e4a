<?php

declare(strict_types=1);

// The PHP idioms the parity table cannot see: the pure enum, the exceptions,
// the copied batch, the table's typed refusal; and each member the
// practice's limits added (the hash's vectors, the fetch's filters, the
// attempt count, dead letters and parking, the consumer's clock), with the
// four examples of SPEC.md played part by part. No Composer, so no PHPUnit:
// each check prints ok or FAIL and the script exits 1 if any failed. Run
// from the repository root:
//   php -n -d display_errors=stderr runners/php/tests/run.php

require __DIR__ . '/../autoload.php';
require __DIR__ . '/../demo.php';

use Outbox\AttemptCap;
use Outbox\Broker;
use Outbox\DeadLetter;
use Outbox\Failure;
use Outbox\Fetch;
use Outbox\FlakyBroker;
use Outbox\IdempotentConsumer;
use Outbox\Message;
use Outbox\OnExhausted;
use Outbox\OutboxRelay;
use Outbox\OutboxTable;
use Outbox\OutOfOrder;
use Outbox\Partition;
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
    return fetched($table, 10);
}

/** @return list<int> */
function fetched(OutboxTable $table, int $limit, Partition $partition = new Partition(), Fetch $fetch = Fetch::Rows): array
{
    return array_map(static fn (Message $m): int => $m->id, $table->unsent($limit, $partition, $fetch));
}

/** @param list<array{int, string, string}> $rows */
function tableOf(array $rows): OutboxTable
{
    $table = new OutboxTable();
    foreach ($rows as [$id, $aggregate, $type]) {
        $table->add(new Message($id, $aggregate, $type));
    }
    return $table;
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

// FNV-1a over the UTF-8 bytes, read unsigned: PHP's 64-bit signed integers
// hold the product, and the mask keeps it below 2^32.
foreach ([
    '' => 0x811c9dc5,
    'a' => 0xe40c292c,
    'foobar' => 0xbf9cf968,
    'order-1' => 0x2b7fcd6d,
    'order-2' => 0x287fc8b4,
    'order-é' => 0x5fd94d7a, // UTF-8 bytes: UTF-16 code units give 0x537e7965
    'заказ-1' => 0xcba8ad55, // over 2^31, not ASCII: a signed remainder by 3 is -2
    'order-10' => 0xd7304967, // over 2^31: Java's signed % by 3 gives 0
] as $text => $hash) {
    check(Partition::fnv1a32((string) $text) === $hash, sprintf('fnv1a32(%s) is 0x%08x', json_encode((string) $text, JSON_UNESCAPED_UNICODE), $hash));
}

// A partition owns the orders whose hash falls on its index.
$owners = static fn (string $aggregate, int $count): array => array_values(array_filter(
    range(0, $count - 1),
    static fn (int $index): bool => (new Partition($index, $count))->owns($aggregate),
));
check(new Partition() == new Partition(0, 1), 'the default partition is 0 of 1');
check((new Partition())->owns('') && (new Partition())->owns('order-1') && (new Partition())->owns('заказ-1'), 'the default partition owns every order');
check($owners('order-1', 2) === [1] && $owners('order-2', 2) === [0], 'order-1 is relay 1 of 2, order-2 relay 0');
check($owners('order-é', 3) === [1] && $owners('заказ-1', 3) === [2] && $owners('order-10', 3) === [1], 'over 2^31 and not ASCII, each order has exactly its one owner of 3');

// The fetch's filters come before the limit.
$table = tableOf([
    [1, 'order-1', 'OrderPlaced'],
    [2, 'order-1', 'OrderPaid'],
    [3, 'order-2', 'OrderPlaced'],
    [4, 'order-1', 'OrderShipped'],
    [5, 'order-3', 'OrderPlaced'],
    [6, 'order-2', 'OrderPaid'],
]);
check(fetched($table, 2) === [1, 2], 'rows: the oldest rows');
check(fetched($table, 10, fetch: Fetch::Heads) === [1, 3, 5], 'heads: the oldest row of each order, in insertion order');
check(fetched($table, 2, fetch: Fetch::Heads) === [1, 3], "heads' limit counts orders");
// order-1 and order-3 hash to relay 1 of 2, order-2 to relay 0.
check(fetched($table, 2, new Partition(1, 2)) === [1, 2], "other partitions' rows take no slot");
check(fetched($table, 10, new Partition(1, 2), Fetch::Heads) === [1, 5], 'heads of the partition only');
check(fetched($table, 1, new Partition(0, 2)) === [3], "relay 0 of 2 takes order-2's row");
check(array_is_list($table->unsent(10, fetch: Fetch::Heads)), 'heads are a list, not keyed by order');

// A parked order is not fetched until it is unparked.
$table = seededTable();
$table->unpark('order-1');
check(ids($table) === [1, 2, 3], 'unparking what is not parked does nothing');
$table->park('order-1');
check(fetched($table, 1) === [2], 'a parked row takes no slot');
check(fetched($table, 10, fetch: Fetch::Heads) === [2], 'heads skip a parked order');
$table->markSent(2);
check($table->hasUnsent(), 'a parked row is still unsent');
$table->unpark('order-1');
check(ids($table) === [1, 3], 'unpark: the order is fetched again, from its oldest');

// Failures are counted per row and never reset; a dead letter is no work.
$table = seededTable();
check($table->markFailed(1) === 1 && $table->markFailed(3) === 1 && $table->markFailed(1) === 2, 'markFailed counts per row, the first included');
check(ids($table) === [1, 2, 3], 'a failure leaves the row unsent');
$letter = $table->deadLetter(1);
check($letter == new DeadLetter(new Message(1, 'order-1', 'OrderPlaced'), 2), 'deadLetter returns the message and its attempts');
check($table->deadLetters() == [$letter], 'deadLetters lists it');
check(ids($table) === [2, 3], 'a dead letter is not unsent');
check($table->markFailed(3) === 2, 'a count never resets');
$table->markSent(2);
$table->markSent(3);
check(!$table->hasUnsent() && count($table->deadLetters()) === 1, 'dead letters are no work');

// SPEC's example: max_attempts 2, Down on attempts 1 and 3: release.
$table = seededTable();
$consumer = new IdempotentConsumer();
$broker = new FlakyBroker($consumer, [1 => Failure::Down, 3 => Failure::Down]);
$runs = [];
for ($run = 0; $run < 3; $run++) {
    $dead = [];
    $alert = static function (DeadLetter $letter) use (&$dead): void {
        $dead[] = $letter->message->id;
    };
    $sent = (new OutboxRelay($table, $broker, 10, cap: new AttemptCap(2), alert: $alert))->runOnce();
    $runs[] = [$sent, $dead];
}
check($runs === [[[2], []], [[], [1]], [[3], []]], 'the cap releases an order after its dead letter: (sent, dead-lettered) per run');
check($table->deadLetters()[0]->attempts === 2, 'the dead letter has its 2 attempts');
check($consumer->journal() === ['order-2 OrderPlaced', 'order-1 OrderPaid'] && $consumer->duplicates() === 0, 'released: OrderPaid without OrderPlaced');
check((new AttemptCap(3))->onExhausted === OnExhausted::Release, 'a cap releases by default');

// Park holds the order; a dead-lettered lost ack was delivered.
$table = seededTable();
$consumer = new IdempotentConsumer();
$broker = new FlakyBroker($consumer, [1 => Failure::LostAck]);
$alerts = [];
$alert = static function (DeadLetter $letter) use (&$alerts): void {
    $alerts[] = $letter;
};
$relay = new OutboxRelay($table, $broker, 10, cap: new AttemptCap(1, OnExhausted::Park), alert: $alert);
check($relay->runOnce() === [2], 'park: the first run sends the other order');
check($relay->runOnce() === [], 'order-1 is parked');
check(count($alerts) === 1 && $alerts[0]->message->id === 1 && $table->deadLetters() == $alerts, 'the alert is raised once, with the dead letter');
$table->unpark('order-1');
check((new OutboxRelay($table, $broker, 10))->runOnce() === [3], 'the dead letter is not retried');
check($consumer->journal() === ['order-1 OrderPlaced', 'order-2 OrderPlaced', 'order-1 OrderPaid'], 'a dead letter means unconfirmed, not undelivered');

// Without a cap, a failing row is retried forever.
$table = tableOf([[1, 'order-1', 'OrderPlaced']]);
$relay = new OutboxRelay($table, new FlakyBroker(new IdempotentConsumer(), array_fill(1, 5, Failure::Down)), 10);
$runs = array_map(static fn (): array => $relay->runOnce(), range(1, 6));
check($runs === [[], [], [], [], [], [1]] && $table->deadLetters() === [], 'without a cap a failing row is retried forever');

// SPEC's example: relays 2, two passes, nothing fails.
$table = tableOf([
    [1, 'order-1', 'OrderPlaced'],
    [2, 'order-2', 'OrderPlaced'],
    [3, 'order-1', 'OrderPaid'],
    [4, 'order-2', 'OrderPaid'],
]);
$consumer = new IdempotentConsumer();
$broker = new FlakyBroker($consumer, []);
$sent = [];
for ($pass = 0; $pass < 2; $pass++) {
    foreach ([0, 1] as $index) {
        $sent[] = (new OutboxRelay($table, $broker, 10, new Partition($index, 2)))->runOnce();
    }
}
check($sent === [[2, 4], [1, 3], [], []], 'two relays split the orders by hash');
check($consumer->journal()[0] === 'order-2 OrderPlaced' && $consumer->journal()[3] === 'order-1 OrderPaid', "relay 0 sends order-2's events first");

// SPEC's example: batch 3, heads, Down on attempts 1 and 2.
$table = tableOf([
    [1, 'order-1', 'OrderPlaced'],
    [2, 'order-1', 'OrderPaid'],
    [3, 'order-1', 'OrderShipped'],
    [4, 'order-2', 'OrderPlaced'],
]);
$relay = new OutboxRelay($table, new FlakyBroker(new IdempotentConsumer(), [1 => Failure::Down, 2 => Failure::Down]), 3, fetch: Fetch::Heads);
$runs = array_map(static fn (): array => $relay->runOnce(), range(1, 3));
check($runs === [[], [1, 4], [2]], 'heads let other orders past a blocked one');

// The consumer forgets an id retention passes after applying it.
$placed = new Message(1, 'order-1', 'OrderPlaced');
$consumer = new IdempotentConsumer(retention: 3);
$consumer->tick();
$consumer->handle($placed); // applied at pass 1
$consumer->tick();
$consumer->handle($placed); // dropped at pass 2, not a new window
$consumer->tick();
$consumer->handle($placed); // dropped at pass 3 = 1 + 3 - 1
check($consumer->duplicates() === 2, 'a repeat inside the window is dropped');
$consumer->tick();
$consumer->handle($placed); // forgotten at pass 4: applied again
check($consumer->journal() === ['order-1 OrderPlaced', 'order-1 OrderPlaced'], 'an id is forgotten at pass t + retention, and applied again');
$consumer->tick();
$consumer->handle($placed); // remembered from pass 4
check($consumer->duplicates() === 3, 'the id is remembered again from its new pass');
$forever = new IdempotentConsumer();
$forever->handle($placed);
for ($pass = 0; $pass < 1000; $pass++) {
    $forever->tick();
}
$forever->handle($placed);
check($forever->duplicates() === 1, 'without a retention an id is kept forever');

// SPEC's example: retention 1, LostAck on attempt 1, two passes.
$table = seededTable();
$consumer = new IdempotentConsumer(retention: 1);
$broker = new FlakyBroker($consumer, [1 => Failure::LostAck]);
$sent = [];
for ($pass = 0; $pass < 2; $pass++) {
    $consumer->tick();
    $sent[] = (new OutboxRelay($table, $broker, 10))->runOnce();
}
check($sent === [[2], [1, 3]], 'retention 1: the relay sends as without it');
check($consumer->journal() === ['order-1 OrderPlaced', 'order-2 OrderPlaced', 'order-1 OrderPlaced', 'order-1 OrderPaid'] && $consumer->duplicates() === 0, 'a retention shorter than the redelivery applies it twice');

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
    '{"batch_size": 3, "max_passes": 10, "max_attempts": true}' => '"max_attempts" must be an integer >= 1',
    '{"batch_size": 3, "max_passes": 10, "max_attempts": 0}' => '"max_attempts" must be an integer >= 1',
    '{"batch_size": 3, "max_passes": 10, "max_attempts": "3"}' => '"max_attempts" must be an integer >= 1',
    '{"batch_size": 3, "max_passes": 10, "max_attempts": 2.5}' => '"max_attempts" must be an integer >= 1',
] as $content => $expected) {
    file_put_contents($path, $content);
    $error = thrown(static fn () => loadConfig($path));
    check($error instanceof BadConfig && $error->getMessage() === "{$path}: {$expected}", "the demo refuses {$content}: {$expected}");
}
file_put_contents($path, '{"batch_size": 3, "max_passes": 10}');
check(loadConfig($path) === ['batch_size' => 3, 'max_passes' => 10], 'the demo takes a config without max_attempts: no attempt limit');
unlink($path);
$error = thrown(static fn () => loadConfig($path));
check($error instanceof BadConfig && $error->getMessage() === "{$path}: cannot read the file", 'the demo refuses a missing file');
check(loadConfig(__DIR__ . '/../../demo.json') === ['batch_size' => 3, 'max_passes' => 10, 'max_attempts' => 3], 'the demo reads the shared config');

echo $failed === 0 ? "all checks passed\n" : "{$failed} check(s) failed\n";
exit($failed === 0 ? 0 : 1);

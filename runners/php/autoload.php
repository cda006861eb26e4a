<?php

declare(strict_types=1);

// Outbox\Foo lives in src/Foo.php; no Composer needed for eight classes.
spl_autoload_register(static function (string $class): void {
    $prefix = 'Outbox\\';
    if (str_starts_with($class, $prefix)) {
        require __DIR__ . '/src/' . substr($class, strlen($prefix)) . '.php';
    }
});

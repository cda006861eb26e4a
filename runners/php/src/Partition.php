<?php

declare(strict_types=1);

namespace Outbox;

/**
 * The orders one relay of several publishes: those whose hash, modulo the
 * number of relays, is its index, so two relays never take rows of one
 * order and each order keeps its order.
 *
 * The default, 0 of 1, is the whole table: one relay owns every order.
 */
final readonly class Partition
{
    /**
     * @param int $index This relay's index, below $count.
     * @param int $count How many relays share the table, at least 1.
     */
    public function __construct(
        public int $index = 0,
        public int $count = 1,
    ) {
    }

    /**
     * FNV-1a, 32 bits, over the UTF-8 bytes of $text: the same number in
     * every language, which a language's built-in string hash is not.
     */
    public static function fnv1a32(string $text): int
    {
        $hash = 2166136261;
        // A PHP string is bytes: $text[$i] is the i-th byte of its UTF-8.
        for ($i = 0, $length = strlen($text); $i < $length; $i++) {
            // PHP's integers are 64-bit and signed: a 32-bit hash times the
            // 25-bit prime still fits (past 2^63 it would turn into a float),
            // and the mask keeps the low 32 bits, the unsigned number.
            $hash = (($hash ^ ord($text[$i])) * 16777619) & 0xFFFFFFFF;
        }
        return $hash;
    }

    /**
     * Whether this relay publishes the order $aggregate: its hash, read as
     * an unsigned number, modulo $count is $index.
     */
    public function owns(string $aggregate): bool
    {
        return self::fnv1a32($aggregate) % $this->count === $this->index;
    }
}

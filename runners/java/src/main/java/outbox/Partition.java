package outbox;

import java.nio.charset.StandardCharsets;

/**
 * The orders one relay of several publishes: those whose hash, modulo the
 * number of relays, is its index, so two relays never take rows of one
 * order and each order keeps its order.
 *
 * The default, 0 of 1, is the whole table: one relay owns every order.
 *
 * @param index this relay's index, below {@code count}
 * @param count how many relays share the table, at least 1
 */
public record Partition(int index, int count) {
    public Partition() {
        this(0, 1);
    }

    /**
     * FNV-1a, 32 bits, over the UTF-8 bytes of {@code text}: the same number in
     * every language, which a language's built-in string hash is not.
     */
    public static long fnv1a32(String text) {
        int hash = 0x811c9dc5; // the offset basis, 2166136261
        // UTF-8 bytes, not the string's UTF-16 chars; a byte is signed, so
        // & 0xff, or a byte over 127 would set the upper bits too.
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 16_777_619; // an int wraps modulo 2^32
        }
        // An int over 2^31 is negative, and its % too: read it unsigned.
        return Integer.toUnsignedLong(hash);
    }

    /**
     * Whether this relay publishes the order {@code aggregate}: its hash, read as
     * an unsigned number, modulo {@code count} is {@code index}.
     */
    public boolean owns(String aggregate) {
        return fnv1a32(aggregate) % count == index;
    }
}

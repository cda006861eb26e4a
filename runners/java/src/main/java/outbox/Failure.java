package outbox;

/** How a scripted publish attempt goes wrong. */
public enum Failure {
    /** The broker did not answer: the message was NOT delivered. */
    DOWN,
    /**
     * The message was delivered, but the ack was lost: the publisher sees
     * an error anyway. This is why delivery is at-least-once.
     */
    LOST_ACK
}

package outbox;

/**
 * No acknowledgement: whether the message arrived is unknown to the
 * publisher. Checked, so a caller of {@link Broker#publish} that forgets
 * this outcome does not compile; it is the relay's normal business, while
 * anything unchecked is a bug that propagates.
 */
public final class PublishFailed extends Exception {
    private static final long serialVersionUID = 1L;

    private final Failure failure;

    /** A failed attempt; its message names the failure, as every port's does. */
    public PublishFailed(Failure failure) {
        // A switch expression over an enum must cover every constant: a new
        // Failure does not compile until it is described here.
        super("publish failed: " + switch (failure) {
            case DOWN -> "broker down";
            case LOST_ACK -> "ack lost";
        });
        this.failure = failure;
    }

    /** Which scripted failure happened; the relay treats both alike. */
    public Failure failure() {
        return failure;
    }
}

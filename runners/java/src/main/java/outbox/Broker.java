package outbox;

/** What the relay publishes to. */
public interface Broker {
    /**
     * Hands the message over. {@link PublishFailed} means no ack came back:
     * the relay must retry later, although the message may have arrived.
     */
    void publish(Message message) throws PublishFailed;
}

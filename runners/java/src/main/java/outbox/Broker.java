package outbox;

/** What the relay publishes to. */
public interface Broker {
    /** Publishes one message; a missing ack is a checked {@link PublishFailed}. */
    void publish(Message message) throws PublishFailed;
}

package outbox;

import java.util.Map;

/**
 * A fake broker that delivers to the consumer inside {@code publish} and
 * fails on scripted attempt numbers, counted from 1 over its whole life.
 */
public final class FlakyBroker implements Broker {
    private final IdempotentConsumer consumer;
    private final Map<Long, Failure> failures;
    private long attempts;

    /**
     * A broker delivering to {@code consumer}, failing attempt n as
     * {@code failures.get(n)} says.
     */
    public FlakyBroker(IdempotentConsumer consumer, Map<Long, Failure> failures) {
        this.consumer = consumer;
        this.failures = Map.copyOf(failures);
    }

    @Override
    public void publish(Message message) throws PublishFailed {
        attempts++;
        Failure failure = failures.get(attempts);
        if (failure == Failure.DOWN) {
            throw new PublishFailed(failure);
        }
        consumer.handle(message);
        if (failure == Failure.LOST_ACK) {
            throw new PublishFailed(failure);
        }
    }
}

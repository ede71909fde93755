// Redis pub/sub: one connection subscribed to the channel, one to publish on (a subscribed connection
// can do nothing else). Publishing waits at most half a second; ioredis reconnects and re-subscribes
// by itself, and `onReconnect` lets the caller catch up on what was published meanwhile.
import { Redis } from 'ioredis';
import { settledWithin } from '../../../platform/timeouts.ts';
import type { EventBus } from './event-bus.ts';

export function createRedisEventBus(url: string, channel: string): EventBus {
  const options = { maxRetriesPerRequest: 1, commandTimeout: 500, enableOfflineQueue: false, lazyConnect: true };
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
  for (const client of [publisher, subscriber]) {
    client.on('error', () => {
      // Reconnects by itself; a failed publish is reported to the caller.
    });
  }
  return {
    kind: 'redis',
    async start(onMessage, onReconnect) {
      let ready = 0;
      subscriber.on('ready', () => {
        ready += 1;
        if (ready > 1) onReconnect();
      });
      subscriber.on('message', (from: string, message: string) => {
        if (from === channel) onMessage(message);
      });
      // Redis down at start is no reason not to start: ioredis keeps trying, and subscribes once it can.
      void publisher.connect().catch(() => {});
      void subscriber.connect().catch(() => {});
      const subscribed = subscriber.subscribe(channel).catch(() => {});
      await settledWithin(subscribed, 2_000);
    },
    async publish(messages) {
      if (messages.length === 1) {
        await publisher.publish(channel, messages[0]!);
        return;
      }
      // Several in one round trip; Redis runs a connection's commands in order.
      const pipeline = publisher.pipeline();
      for (const message of messages) pipeline.publish(channel, message);
      const answers = (await pipeline.exec()) ?? [];
      const failed = answers.find(([error]) => error);
      if (failed) throw failed[0];
    },
    async close() {
      await Promise.all([
        subscriber.quit().catch(() => subscriber.disconnect()),
        publisher.quit().catch(() => publisher.disconnect()),
      ]);
    },
  };
}

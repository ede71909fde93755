import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sseEvent, type SseFrame, type SseRegistry } from '../../../platform/http/sse.ts';
import { Detail } from '../../../platform/http/schemas.ts';
import { tags } from '../common.schemas.ts';
import { PRICE_STREAM_DESCRIPTION, PriceStreamFrames, PriceStreamQuery } from '../stream.schemas.ts';
import type { PriceStream } from '../price-stream.service.ts';
import { marketErrors } from './responses.ts';

export function priceStreamRoutes(deps: { stream: PriceStream; sse: SseRegistry }): FastifyPluginAsyncTypebox {
  const { stream, sse } = deps;
  return async (app) => {
    app.get(
      '/api/v1/market/stream',
      {
        schema: {
          tags,
          operationId: 'streamPrices',
          summary: 'Live prices as Server-Sent Events',
          description: PRICE_STREAM_DESCRIPTION,
          querystring: PriceStreamQuery,
          response: {
            200: { description: 'The event stream.', content: { 'text/event-stream': { schema: PriceStreamFrames } } },
            ...marketErrors({ params: true }),
            429: Detail,
          },
        },
      },
      async (request, reply) => {
        sse.admit(request);
        const infos = await stream.resolve(request.query.symbols);
        // Following first, snapshot second: a price that moves meanwhile is held, and sent after it.
        const held: SseFrame[] = [];
        const subscription = stream.subscribe(infos ? infos.map((i) => i.symbol) : null, {
          write: (frame) => held.push(frame),
        });
        try {
          const snapshot = await stream.snapshot(infos);
          const connection = sse.open(request, reply);
          connection.onClose(subscription.unsubscribe);
          connection.write(sseEvent('snapshot', snapshot) + held.map((frame) => frame.bytes.toString()).join(''));
          // From here on the hub writes each batch's frame to the stream itself (decision 540).
          subscription.handTo(connection);
        } catch (error) {
          subscription.unsubscribe();
          throw error;
        }
      },
    );
  };
}

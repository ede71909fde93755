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
        let held: SseFrame[] | null = [];
        let connection: ReturnType<SseRegistry['open']> | undefined;
        const unsubscribe = stream.subscribe(infos ? infos.map((i) => i.symbol) : null, (frame) => {
          if (held) held.push(frame);
          else connection?.write(frame);
        });
        try {
          const snapshot = await stream.snapshot(infos);
          connection = sse.open(request, reply);
          connection.onClose(unsubscribe);
          connection.write(sseEvent('snapshot', snapshot) + held.map((frame) => frame.bytes.toString()).join(''));
          held = null;
        } catch (error) {
          unsubscribe();
          throw error;
        }
      },
    );
  };
}

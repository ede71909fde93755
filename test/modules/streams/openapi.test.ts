// Both streams are documented as text/event-stream, with every event's schema.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        responses: Record<string, { content?: Record<string, { schema: { anyOf?: { $ref: string }[] } }> }>;
        security?: unknown[];
      }
    >
  >;
  components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> };
};

describe('the OpenAPI document of the streams', () => {
  let t: TestApp;
  let doc: Doc;
  before(async () => {
    t = await buildTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Doc>();
  });
  after(() => t.close());

  const events = (path: string) => {
    const media = doc.paths[path]!.get!.responses['200']!.content!;
    assert.deepEqual(Object.keys(media), ['text/event-stream']);
    return media['text/event-stream']!.schema.anyOf!.map(
      (ref) => doc.components.schemas[ref.$ref.split('/').at(-1)!]!.properties!.event!.enum![0],
    );
  };

  it("documents the price stream's snapshot, price and end events", () => {
    assert.deepEqual(events('/api/v1/market/stream'), ['snapshot', 'price', 'end']);
    assert.ok(
      doc.components.schemas.PriceEvent && doc.components.schemas.PriceSnapshot && doc.components.schemas.StreamEnd,
    );
  });

  it('documents every account event, the ticket, and both ways to authenticate', () => {
    assert.deepEqual(events('/api/stream'), [
      'balance.synced',
      'trades.synced',
      'transfers.synced',
      'portfolio.updated',
      'credential.validated',
      'credential.changed',
      'job.finished',
      'signal.refused',
      'trading.halted',
      'webhook.received',
      'order.updated',
      'end',
    ]);
    assert.deepEqual(doc.paths['/api/stream']!.get!.security, [{ bearerAuth: [] }, { streamTicket: [] }]);
    assert.ok(doc.paths['/api/stream/ticket']!.post!.responses['200']);
  });
});

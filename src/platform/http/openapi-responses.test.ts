import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Response, shareErrorResponses } from './openapi-responses.ts';

const unavailable = { description: 'The run could not be started', content: { 'application/json': { schema: {} } } };
const operations = (): { operationId: string; responses: Record<string, Response> }[] => [
  { operationId: 'runSyncAccounts', responses: { '200': { description: 'OK' }, '503': { ...unavailable } } },
  { operationId: 'runCleanup', responses: { '503': { ...unavailable } } },
  { operationId: 'readOne', responses: { '404': { description: 'Error' } } },
  { operationId: 'readTwo', responses: { '404': { description: 'Error' }, '409': { description: 'Only once' } } },
];

describe('error responses shared in components', () => {
  it('references an answer two operations give alike, names it the same in any route order, leaves the rest inline', () => {
    const forward = operations();
    const backward = operations().reverse();
    const components = shareErrorResponses(forward, {});
    assert.deepEqual(shareErrorResponses(backward, {}), components);
    assert.deepEqual(Object.keys(components).sort(), ['Error', 'RunCleanup503']);
    assert.deepEqual(forward[0]?.responses['503'], { $ref: '#/components/responses/RunCleanup503' });
    assert.deepEqual(forward[0]?.responses['200'], { description: 'OK' }, 'a success answer stays inline');
    assert.deepEqual(forward[3]?.responses['409'], { description: 'Only once' }, 'an answer given once stays inline');
  });
});

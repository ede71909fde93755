import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CodehostHeaders } from '../webhooks.schemas.ts';
import { aliasHeader, registerReceiver, type ReceiverDeps } from './receiver.ts';

export function codehostRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'codehost',
      url: '/api/webhooks/platforms/codehost',
      operationId: 'receiveCodehostEvent',
      security: ['codehostSignature'],
      summary: 'Receive a code host (GitHub) event',
      description:
        'Push, pull request (opened, closed, merged, reopened), failed workflow run, published release and ' +
        'ping post a chat notification; other events are stored only. A missing `x-codehost-event` (and ' +
        '`X-GitHub-Event`) answers 422.',
      headers: CodehostHeaders,
      onRequest: aliasHeader('x-github-event', 'x-codehost-event'),
    });
  };
}

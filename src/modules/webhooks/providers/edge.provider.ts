// Edge deployments (Vercel): a deployment that is ready, failed or was canceled becomes a message.
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import type { ChatMessage } from '../../notifications/index.ts';
import { hexHmacCheck } from '../signatures.ts';
import { excerpt, REPLAY_WINDOW_MS, header, obj, optionalHeader, str, type Json, processed } from './provider.ts';

const OUTCOMES: Record<string, { verb: string; level: ChatMessage['level'] }> = {
  'deployment.succeeded': { verb: 'is ready', level: 'success' },
  'deployment.ready': { verb: 'is ready', level: 'success' },
  'deployment.error': { verb: 'failed', level: 'error' },
  'deployment.canceled': { verb: 'was canceled', level: 'warning' },
};

function withScheme(url: string | undefined): string | undefined {
  if (!url) return undefined;
  return /^https?:\/\//.test(url) ? url : `https://${url}`;
}

export function edgeMessage(type: string, body: Json): Omit<ChatMessage, 'source'> | null {
  const outcome = OUTCOMES[type];
  if (!outcome) return null;
  const payload = obj(body.payload);
  const deployment = obj(payload.deployment);
  const meta = obj(deployment.meta);
  const name = str(deployment.name) ?? str(obj(payload.project).id) ?? 'project';
  const target = str(payload.target) ?? 'preview';
  const fields = [{ name: 'Target', value: target }];
  const branch = str(meta.githubCommitRef);
  if (branch) fields.push({ name: 'Branch', value: branch });
  const commit = str(meta.githubCommitSha);
  if (commit) fields.push({ name: 'Commit', value: commit.slice(0, 7) });
  return {
    title: `Deployment of ${name} (${target}) ${outcome.verb}`,
    text: excerpt(str(meta.githubCommitMessage), 200),
    level: outcome.level,
    url: withScheme(str(obj(payload.links).deployment)) ?? withScheme(str(deployment.url)),
    fields,
  };
}

export const edgeProvider = defineWebhookProvider({
  provider: 'edge',
  name: 'Edge',
  secretVariable: 'EDGE_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/edge',
    operationId: 'receiveEdgeEvent',
    summary: 'Receive an edge deployment (Vercel) event',
    description:
      '`deployment.succeeded`/`ready`, `deployment.error` and `deployment.canceled` post a chat ' +
      'notification; other events are stored only. Signed with `x-vercel-signature`; the body ' +
      '`id` is the deduplication key.',
    headers: Type.Object({ 'x-vercel-signature': optionalHeader('Hex HMAC-SHA1(secret, raw body).') }),
  },
  bodyLimit: 4 * MiB,
  security: {
    edgeSignature: headerScheme('x-vercel-signature', 'Hex HMAC-SHA1(EDGE_WEBHOOK_SECRET, raw body) (Vercel).'),
  },
  redact: redactSecrets,
  signature: (headers, secret) => hexHmacCheck(header(headers, 'x-vercel-signature'), secret, 'sha1'),
  identify(delivery) {
    // The event id is inside the signed body: a copy carries the same one. Without it, the body is all.
    const senderId = str(delivery.body.id);
    return {
      senderId,
      sameBodyWindowMs: senderId ? undefined : REPLAY_WINDOW_MS,
      event: str(delivery.body.type) ?? 'unknown',
    };
  },
  ports: ['chat'],
  async apply(context) {
    const message = edgeMessage(context.event, context.body);
    if (message) await context.chat(message);
    return processed();
  },
});

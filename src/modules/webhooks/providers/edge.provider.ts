// Edge deployments (Vercel): a deployment that is ready, failed or was canceled becomes a message.
import type { ChatMessage } from '../../notifications/index.ts';
import { hexHmacCheck } from '../signatures.ts';
import { excerpt, REPLAY_WINDOW_MS, header, obj, str, type Json, processed, type ProviderHandler } from './provider.ts';

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

export const edgeHandler: ProviderHandler = {
  provider: 'edge',
  name: 'Edge',
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
  async apply(context) {
    const message = edgeMessage(context.event, context.body);
    if (message) await context.chat(message);
    return processed();
  },
};

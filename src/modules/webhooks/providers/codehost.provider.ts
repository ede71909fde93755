// Code host (GitHub): push, pull request, failed workflow run, release and ping become chat messages.
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import type { ChatMessage } from '../../notifications/index.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { hubSignatureCheck } from '../signatures.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import {
  excerpt,
  REPLAY_WINDOW_MS,
  header,
  obj,
  optionalHeader,
  plural,
  str,
  type Headers,
  type Json,
  processed,
} from './provider.ts';

const CODEHOST_EVENT_HEADERS = ['x-codehost-event', 'x-github-event'] as const;

type Message = Omit<ChatMessage, 'source'>;

function repoName(body: Json): string {
  return str(obj(body.repository).full_name) ?? str(obj(body.organization).login) ?? 'repository';
}

function pushMessage(body: Json): Message | null {
  const ref = str(body.ref) ?? '';
  const repo = repoName(body);
  const who = str(obj(body.pusher).name) ?? str(obj(body.sender).login) ?? 'someone';
  const isTag = ref.startsWith('refs/tags/');
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  const url = str(body.compare) ?? str(obj(body.repository).html_url);
  if (body.deleted === true) {
    return {
      title: `[${repo}] ${isTag ? 'Tag' : 'Branch'} ${name} deleted by ${who}`,
      text: '',
      level: 'warning',
      url,
    };
  }
  if (isTag) return { title: `[${repo}] Tag ${name} pushed by ${who}`, text: '', level: 'info', url };
  const commits = Array.isArray(body.commits) ? (body.commits as unknown[]).map(obj) : [];
  if (commits.length === 0 && body.created !== true) return null;
  const lines = commits.slice(0, 5).map((c) => {
    const id = (str(c.id) ?? '').slice(0, 7);
    const author = str(obj(c.author).username) ?? str(obj(c.author).name) ?? '';
    return `\`${id}\` ${excerpt(str(c.message), 80)}${author ? ` (${author})` : ''}`;
  });
  if (commits.length > 5) lines.push(`…and ${commits.length - 5} more`);
  const what = commits.length > 0 ? plural(commits.length, 'new commit') : 'new branch';
  return {
    title: `[${repo}] ${what} pushed to ${name} by ${who}${body.forced === true ? ' (forced)' : ''}`,
    text: lines.join('\n'),
    level: 'info',
    url,
  };
}

function pullRequestMessage(body: Json): Message | null {
  const action = str(body.action);
  const pr = obj(body.pull_request);
  if (!action || !['opened', 'closed', 'reopened'].includes(action)) return null;
  const merged = action === 'closed' && pr.merged === true;
  const verb = merged ? 'merged' : action;
  const number = str(body.number) ?? str(pr.number) ?? '?';
  const who =
    str(obj(merged ? pr.merged_by : undefined).login) ??
    str(obj(body.sender).login) ??
    str(obj(pr.user).login) ??
    'someone';
  const base = str(obj(pr.base).ref);
  const head = str(obj(pr.head).ref);
  return {
    title: `[${repoName(body)}] Pull request #${number} ${verb}: ${excerpt(str(pr.title), 120)}`,
    text: `${verb[0]!.toUpperCase()}${verb.slice(1)} by ${who}`,
    level: merged ? 'success' : action === 'closed' ? 'warning' : 'info',
    url: str(pr.html_url),
    fields: base && head ? [{ name: 'Branches', value: `${head} → ${base}` }] : undefined,
  };
}

function workflowRunMessage(body: Json): Message | null {
  const run = obj(body.workflow_run);
  const conclusion = str(run.conclusion);
  if (body.action !== 'completed' || (conclusion !== 'failure' && conclusion !== 'timed_out')) return null;
  const name = str(run.name) ?? str(obj(body.workflow).name) ?? 'Workflow';
  const branch = str(run.head_branch) ?? 'unknown branch';
  const fields = [{ name: 'Branch', value: branch }];
  const sha = str(run.head_sha);
  if (sha) fields.push({ name: 'Commit', value: sha.slice(0, 7) });
  const actor = str(obj(run.actor).login);
  if (actor) fields.push({ name: 'Triggered by', value: actor });
  return {
    title: `[${repoName(body)}] ${name} ${conclusion === 'timed_out' ? 'timed out' : 'failed'} on ${branch}`,
    text: excerpt(str(obj(run.head_commit).message), 200),
    level: 'error',
    url: str(run.html_url),
    fields,
  };
}

function releaseMessage(body: Json): Message | null {
  if (body.action !== 'published') return null;
  const release = obj(body.release);
  const tag = str(release.tag_name) ?? '';
  const name = str(release.name);
  return {
    title: `[${repoName(body)}] Release ${name && name !== tag ? `${name} (${tag})` : tag} published`,
    text: excerpt(str(release.body), 300),
    level: 'success',
    url: str(release.html_url),
    fields: release.prerelease === true ? [{ name: 'Pre-release', value: 'yes' }] : undefined,
  };
}

function pingMessage(body: Json): Message {
  const hook = obj(body.hook);
  const events = Array.isArray(hook.events) ? (hook.events as unknown[]).map(String).join(', ') : '';
  return {
    title: `[${repoName(body)}] Code host webhook connected`,
    text: str(body.zen) ?? '',
    level: 'info',
    fields: events ? [{ name: 'Events', value: events }] : undefined,
  };
}

/** The chat message a code host event deserves, or null when it is not worth one. */
export function codehostMessage(event: string, body: Json): Message | null {
  switch (event) {
    case 'push':
      return pushMessage(body);
    case 'pull_request':
      return pullRequestMessage(body);
    case 'workflow_run':
      return workflowRunMessage(body);
    case 'release':
      return releaseMessage(body);
    case 'ping':
      return pingMessage(body);
    default:
      return null;
  }
}

function eventName(headers: Headers): string {
  return header(headers, ...CODEHOST_EVENT_HEADERS) ?? 'unknown';
}

export const codehostProvider = defineWebhookProvider({
  provider: 'codehost',
  name: 'Code host',
  secretVariable: 'CODEHOST_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/codehost',
    operationId: 'receiveCodehostEvent',
    summary: 'Receive a code host (GitHub) event',
    description:
      'Push, pull request (opened, closed, merged, reopened), failed workflow run, published release and ' +
      'ping post a chat notification; other events are stored only. A missing `x-codehost-event` (and ' +
      '`X-GitHub-Event`) answers 422.',
    headers: Type.Object({
      'x-codehost-event': Type.String({
        description:
          "Event name, e.g. `push`, `pull_request`, `ping`. GitHub's `X-GitHub-Event` is accepted in its place.",
      }),
      'x-hub-signature-256': optionalHeader('`sha256=<hex HMAC-SHA256(secret, raw body)>`.'),
      'x-codehost-delivery': optionalHeader(
        "Delivery GUID, the deduplication key (or GitHub's `X-GitHub-Delivery`); a hash of the body when absent.",
      ),
    }),
    headerAliases: { 'x-github-event': 'x-codehost-event' },
  },
  // GitHub caps payloads at 25 MB and sends that much for large pushes.
  bodyLimit: 25 * MiB,
  security: {
    codehostSignature: headerScheme(
      'x-hub-signature-256',
      '`sha256=<hex HMAC-SHA256(CODEHOST_WEBHOOK_SECRET, raw body)>` (GitHub).',
    ),
  },
  redact: redactSecrets,
  signature: (headers, secret) => hubSignatureCheck(header(headers, 'x-hub-signature-256'), secret),
  identify(delivery) {
    const action = str(delivery.body.action);
    const name = eventName(delivery.headers);
    // The delivery GUID is a header the signature does not cover, and nothing signed carries a time.
    return {
      senderId: header(delivery.headers, 'x-codehost-delivery', 'x-github-delivery'),
      sameBodyWindowMs: REPLAY_WINDOW_MS,
      event: action ? `${name}.${action}` : name,
    };
  },
  ports: ['chat'],
  async apply(context) {
    const message = codehostMessage(eventName(context.headers), context.body);
    if (message) await context.chat(message);
    return processed();
  },
});

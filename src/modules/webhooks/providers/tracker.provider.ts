// Issue tracker (Linear): issues created, moved to another state or removed, and new comments.
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import type { ChatMessage } from '../../notifications/index.ts';
import { hexHmacCheck, verifyTimestampMs } from '../signatures.ts';
import { excerpt, REPLAY_WINDOW_MS, header, obj, optionalHeader, str, type Json, processed } from './provider.ts';

type Message = Omit<ChatMessage, 'source'>;

function issueLabel(issue: Json): string {
  const identifier = str(issue.identifier);
  const title = excerpt(str(issue.title), 120);
  return identifier ? `${identifier} ${title}`.trim() : title || 'an issue';
}

function issueFields(issue: Json): { name: string; value: string }[] {
  const fields: { name: string; value: string }[] = [];
  const state = str(obj(issue.state).name);
  if (state) fields.push({ name: 'State', value: state });
  const assignee = str(obj(issue.assignee).name) ?? str(obj(issue.assignee).displayName);
  if (assignee) fields.push({ name: 'Assignee', value: assignee });
  const priority = str(issue.priorityLabel);
  if (priority) fields.push({ name: 'Priority', value: priority });
  return fields;
}

function issueMessage(action: string, body: Json): Message | null {
  const issue = obj(body.data);
  const actor = str(obj(body.actor).name);
  const by = actor ? ` by ${actor}` : '';
  const url = str(body.url) ?? str(issue.url);
  if (action === 'create') {
    return {
      title: `Issue created: ${issueLabel(issue)}`,
      text: `Filed${by}`,
      level: 'info',
      url,
      fields: issueFields(issue),
    };
  }
  if (action === 'remove') {
    return { title: `Issue removed: ${issueLabel(issue)}`, text: `Removed${by}`, level: 'warning', url };
  }
  // Edits to titles, labels and the like are frequent and not worth a message; a state change is.
  if (action === 'update' && 'stateId' in obj(body.updatedFrom)) {
    const state = obj(issue.state);
    const stateType = str(state.type);
    return {
      title: `${issueLabel(issue)} moved to ${str(state.name) ?? 'another state'}`,
      text: `Moved${by}`,
      level: stateType === 'completed' ? 'success' : stateType === 'canceled' ? 'warning' : 'info',
      url,
      fields: issueFields(issue),
    };
  }
  return null;
}

function commentMessage(action: string, body: Json): Message | null {
  if (action !== 'create') return null;
  const comment = obj(body.data);
  const issue = obj(comment.issue);
  const author = str(obj(comment.user).name) ?? str(obj(body.actor).name) ?? 'Someone';
  return {
    title: `New comment on ${issueLabel(issue)}`,
    text: `${author}: ${excerpt(str(comment.body), 300)}`,
    level: 'info',
    url: str(body.url) ?? str(comment.url),
  };
}

export function trackerMessage(entity: string, action: string, body: Json): Message | null {
  if (entity === 'Issue') return issueMessage(action, body);
  if (entity === 'Comment') return commentMessage(action, body);
  return null;
}

export const trackerProvider = defineWebhookProvider({
  provider: 'tracker',
  name: 'Tracker',
  secretVariable: 'TRACKER_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/tracker',
    operationId: 'receiveTrackerEvent',
    summary: 'Receive an issue tracker (Linear) event',
    description:
      'Issues created, moved to another state or removed, and new comments post a chat ' +
      'notification; other changes are stored only. A body `webhookTimestamp` more than 60 s from ' +
      'now is refused (401) as a replay.',
    headers: Type.Object({
      'tracker-signature': optionalHeader(
        "Hex HMAC-SHA256(secret, raw body); Linear's `Linear-Signature` is accepted too. The body's " +
          '`webhookTimestamp` (ms) must be within 60 s.',
      ),
      'tracker-event': optionalHeader('Entity type, e.g. `Issue`, `Comment` (or `Linear-Event`).'),
      'tracker-delivery': optionalHeader('Delivery id, the deduplication key (or `Linear-Delivery`).'),
    }),
  },
  bodyLimit: 4 * MiB,
  security: {
    trackerSignature: headerScheme(
      'tracker-signature',
      "Hex HMAC-SHA256(TRACKER_WEBHOOK_SECRET, raw body), with the body's `webhookTimestamp` within 60 s; " +
        "Linear's `Linear-Signature` is accepted too.",
    ),
  },
  redact: redactSecrets,
  signature: (headers, secret) => hexHmacCheck(header(headers, 'tracker-signature', 'linear-signature'), secret),
  // The send time is signed inside the body, so it is read once the signature has matched.
  checkBody: (body, now) => verifyTimestampMs(body.webhookTimestamp, now),
  identify(delivery) {
    const entity = header(delivery.headers, 'tracker-event', 'linear-event') ?? str(delivery.body.type) ?? 'unknown';
    const action = str(delivery.body.action);
    // Linear-Delivery is a header the signature does not cover; the signed time leaves a copy 60 s.
    return {
      senderId: header(delivery.headers, 'tracker-delivery', 'linear-delivery'),
      sameBodyWindowMs: REPLAY_WINDOW_MS,
      event: action ? `${entity}.${action}` : entity,
    };
  },
  ports: ['chat'],
  async apply(context) {
    const [entity = '', action = ''] = context.event.split('.');
    const message = trackerMessage(entity, action, context.body);
    if (message) await context.chat(message);
    return processed();
  },
});

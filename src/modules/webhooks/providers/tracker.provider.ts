// Issue tracker (Linear): issues created, moved to another state or removed, and new comments.
import type { ChatMessage } from '../../notifications/index.ts';
import { hexHmacCheck, verifyTimestampMs } from '../signatures.ts';
import { excerpt, REPLAY_WINDOW_MS, header, obj, str, type Json, processed, type ProviderHandler } from './provider.ts';

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

export const trackerHandler: ProviderHandler = {
  provider: 'tracker',
  name: 'Tracker',
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
  async apply(context) {
    const [entity = '', action = ''] = context.event.split('.');
    const message = trackerMessage(entity, action, context.body);
    if (message) await context.chat(message);
    return processed();
  },
};

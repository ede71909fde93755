// Error monitoring (Sentry): new and resolved issues, alert rules that fired, metric alerts, errors.
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import type { ChatMessage } from '../../notifications/index.ts';
import { hexHmacCheck } from '../signatures.ts';
import { excerpt, REPLAY_WINDOW_MS, header, obj, optionalHeader, str, type Json, processed } from './provider.ts';

type Message = Omit<ChatMessage, 'source'>;
type Level = ChatMessage['level'];

function sentryLevel(level: string | undefined): Level {
  if (level === 'fatal' || level === 'error') return 'error';
  if (level === 'warning') return 'warning';
  return 'info';
}

function projectField(item: Json): { name: string; value: string }[] {
  const project = str(obj(item.project).slug) ?? str(obj(item.project).name) ?? str(item.project);
  return project ? [{ name: 'Project', value: project }] : [];
}

function issueMessage(action: string, data: Json): Message | null {
  if (action !== 'created' && action !== 'resolved') return null;
  const issue = obj(data.issue);
  const id = str(issue.shortId);
  return {
    title: `${
      action === 'created' ? 'New ' + 'issue' : 'Issue ' + 'resolved'
    }: ${id ? `${id} ` : ''}${excerpt(str(issue.title), 150)}`,
    text: excerpt(str(issue.culprit), 200),
    level: action === 'resolved' ? 'success' : sentryLevel(str(issue.level)),
    url: str(issue.web_url) ?? str(issue.permalink),
    fields: projectField(issue),
  };
}

function eventAlertMessage(action: string, data: Json): Message | null {
  if (action !== 'triggered') return null;
  const event = obj(data.event);
  const rule = str(data.triggered_rule);
  return {
    title: `Alert${rule ? ` "${rule}"` : ''} triggered: ${excerpt(str(event.title), 150)}`,
    text: excerpt(str(event.culprit), 200),
    level: sentryLevel(str(event.level) ?? 'error'),
    url: str(event.web_url),
    fields: projectField(event),
  };
}

const METRIC_LEVELS: Record<string, Level> = { critical: 'error', warning: 'warning', resolved: 'success' };

function metricAlertMessage(action: string, data: Json): Message | null {
  const level = METRIC_LEVELS[action];
  if (!level) return null;
  const rule = str(obj(obj(data.metric_alert).alert_rule).name);
  return {
    title: `Metric alert ${action}: ${str(data.description_title) ?? rule ?? 'metric alert'}`,
    text: excerpt(str(data.description_text), 300),
    level,
    url: str(data.web_url),
  };
}

function errorMessage(action: string, data: Json): Message | null {
  if (action !== 'created') return null;
  const error = obj(data.error);
  return {
    title: `Error: ${excerpt(str(error.title), 150)}`,
    text: excerpt(str(error.culprit), 200),
    level: sentryLevel(str(error.level) ?? 'error'),
    url: str(error.web_url),
    fields: projectField(error),
  };
}

export function errormonMessage(resource: string, action: string, body: Json): Message | null {
  const data = obj(body.data);
  switch (resource) {
    case 'issue':
      return issueMessage(action, data);
    case 'event_alert':
      return eventAlertMessage(action, data);
    case 'metric_alert':
      return metricAlertMessage(action, data);
    case 'error':
      return errorMessage(action, data);
    default:
      return null;
  }
}

export const errormonProvider = defineWebhookProvider({
  provider: 'errormon',
  name: 'Error monitoring',
  secretVariable: 'ERRORMON_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/errormon',
    operationId: 'receiveErrormonEvent',
    summary: 'Receive an error monitoring (Sentry) event',
    description:
      'Issues created or resolved, triggered alert rules, metric alerts (critical, warning, resolved) and ' +
      'new errors post a chat notification; other resources are stored only.',
    headers: Type.Object({
      'errormon-hook-signature': optionalHeader(
        "Hex HMAC-SHA256(secret, raw body); Sentry's `Sentry-Hook-Signature` is accepted too.",
      ),
      'errormon-hook-resource': optionalHeader(
        'Resource: `issue`, `event_alert`, `metric_alert`, `error`, ... (or `Sentry-Hook-Resource`).',
      ),
      'request-id': optionalHeader('Delivery id, the deduplication key.'),
    }),
  },
  bodyLimit: 4 * MiB,
  security: {
    errormonSignature: headerScheme(
      'errormon-hook-signature',
      "Hex HMAC-SHA256(ERRORMON_WEBHOOK_SECRET, raw body); Sentry's `Sentry-Hook-Signature` is accepted too.",
    ),
  },
  redact: redactSecrets,
  signature: (headers, secret) =>
    hexHmacCheck(header(headers, 'errormon-hook-signature', 'sentry-hook-signature'), secret),
  identify(delivery) {
    const resource = header(delivery.headers, 'errormon-hook-resource', 'sentry-hook-resource') ?? 'unknown';
    const action = str(delivery.body.action);
    // Request-ID and Sentry-Hook-Timestamp are headers the signature does not cover.
    return {
      senderId: header(delivery.headers, 'request-id'),
      sameBodyWindowMs: REPLAY_WINDOW_MS,
      event: action ? `${resource}.${action}` : resource,
    };
  },
  ports: ['chat'],
  async apply(context) {
    const [resource = '', action = ''] = context.event.split('.');
    const message = errormonMessage(resource, action, context.body);
    if (message) await context.chat(message);
    return processed();
  },
});

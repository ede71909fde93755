// What a user is told, from the account events other modules publish (docs/decisions/222): which of
// the notification events it is, and the message. An event of no interest is undefined. Pure.
import type { ChatMessage } from './messages.ts';
import type { NotifyEvent } from './preferences.domain.ts';

export interface Notice {
  event: NotifyEvent;
  message: ChatMessage;
  /** What makes it once: an order is told of once per final status, however many events say so. */
  key?: string;
}

type Data = Record<string, unknown>;
const str = (value: unknown) =>
  typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);

/** The order statuses a user is told of, and as which event. */
const ORDER_NOTICES: Record<string, { event: NotifyEvent; verb: string; level: ChatMessage['level'] }> = {
  filled: { event: 'order.filled', verb: 'filled', level: 'success' },
  rejected: { event: 'order.rejected', verb: 'rejected', level: 'error' },
  canceled: { event: 'order.canceled', verb: 'canceled', level: 'warning' },
};

export function noticeOf(type: string, data: unknown): Notice | undefined {
  const d = (data && typeof data === 'object' ? data : {}) as Data;
  if (type === 'trading.halted') {
    const dailyLoss = d.cause === 'daily_loss';
    return {
      event: dailyLoss ? 'daily_loss' : 'trading.halted',
      message: {
        source: 'trading',
        title: dailyLoss ? 'Trading halted: daily loss limit reached' : 'Trading halted',
        text: `${str(d.reason)}${d.until ? ` Until ${str(d.until)}.` : ''} Open orders are being canceled.`.trim(),
        level: 'warning',
      },
    };
  }
  if (type === 'signal.refused') {
    return {
      event: 'signal.refused',
      message: {
        source: 'signals',
        title: `Signal refused: ${str(d.hook_name)}`,
        text: `An alert to your hook "${str(d.hook_name)}" made no order (HTTP ${str(d.status)}): ${str(d.reason)}`,
        level: 'warning',
      },
    };
  }
  if (type === 'order.updated') {
    const notice = ORDER_NOTICES[str(d.status)];
    if (!notice) return undefined;
    const what = `${str(d.side).toUpperCase()} ${str(d.amount)} ${str(d.symbol)}`.trim();
    const fields = [
      { name: 'Mode', value: str(d.mode) },
      { name: 'Exchange', value: str(d.exchange) },
      ...(d.average_price ? [{ name: 'Average price', value: str(d.average_price) }] : []),
      ...(d.reason ? [{ name: 'Reason', value: str(d.reason) }] : []),
    ].filter((field) => field.value !== '');
    return {
      event: notice.event,
      key: `order:${str(d.id)}:${str(d.status)}`,
      message: {
        source: 'orders',
        title: `Order ${notice.verb}: ${what}`,
        text: `Your ${str(d.mode)} ${str(d.type)} order ${str(d.id)} was ${notice.verb}.`,
        level: notice.level,
        fields,
      },
    };
  }
  return undefined;
}

/** The message as plain text, for Telegram and mail. */
export function plainText(message: ChatMessage): string {
  const fields = (message.fields ?? []).map((field) => `${field.name}: ${field.value}`);
  return [message.title, message.text, ...fields].filter(Boolean).join('\n');
}

/** What the test send says. */
export const TEST_MESSAGE: ChatMessage = {
  source: 'notifications',
  title: 'Test notification',
  text: 'This channel is set up: notifications you chose will arrive here.',
  level: 'info',
};

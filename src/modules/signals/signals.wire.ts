// Signal hooks on the wire: the rows the service returns, with the URL alerts are posted to.
import { iso } from '../../platform/http/schemas.ts';
import type { HookInput, HookWithSecret as HookAndSecret } from './hooks.service.ts';
import type { Hook, HookCreateBody, HookWithSecret } from './signals.schemas.ts';
import type { HookRow } from './signals.repository.ts';

export const alertUrl = (origin: string, id: string) => `${origin.replace(/\/+$/, '')}/api/signals/tradingview/${id}`;

const base = (row: HookRow, origin: string) => ({
  id: row.id,
  name: row.name,
  mode: row.mode,
  exchange: row.exchange,
  url: alertUrl(origin, row.id),
  max_lag_seconds: row.maxLagSeconds,
  allowed_ips: row.allowedIps ?? null,
  created_at: iso(row.createdAt)!,
});

export function hookWire(row: HookRow, origin: string): Hook {
  return {
    ...base(row, origin),
    alerts_accepted: row.alertsAccepted,
    alerts_refused: row.alertsRefused,
    last_alert_at: iso(row.lastAlertAt),
    last_error: row.lastError,
  };
}

export function hookWithSecretWire(made: HookAndSecret, origin: string): HookWithSecret {
  return { ...base(made.hook, origin), secret: made.secret };
}

/** The body of POST /api/signals/hooks, its defaults applied, as the service takes it. */
export function hookInputOf(body: HookCreateBody): HookInput {
  return {
    name: body.name.trim(),
    mode: body.mode ?? 'paper',
    exchange: (body.exchange ?? 'binance').trim().toLowerCase(),
    maxLagSeconds: body.max_lag_seconds ?? 60,
    allowedIps: body.allowed_ips && body.allowed_ips.length > 0 ? body.allowed_ips : null,
  };
}

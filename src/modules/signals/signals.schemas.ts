// Signal hooks and alerts on the wire. The alert body is read by the service itself (JSON or KEY=value
// lines, alerts.domain.ts), so it has no body schema here; its answers do.
import { Type, type Static } from 'typebox';
import { isIpOrCidr } from '../../platform/http/client-address.ts';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { SIGNAL_MODES } from './alerts.domain.ts';

export const MAX_LAG_SECONDS = 86_400;

export const HookCreateBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'What the hook is for, e.g. "BTC trend strategy".',
    }),
    mode: Type.Optional(
      StringEnum(SIGNAL_MODES, {
        default: 'paper',
        description: '`paper` (default) or `live`; a live hook needs two-factor on your account.',
      }),
    ),
    exchange: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        default: 'binance',
        description: 'The venue (ccxt id, any case) orders go to: one the platform trades on (422 otherwise).',
      }),
    ),
    max_lag_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LAG_SECONDS,
        default: 60,
        description: 'An alert whose `time` is further than this from now is refused as stale (422).',
      }),
    ),
    allowed_ips: Type.Optional(
      Nullable(
        Type.Array(Type.String({ maxLength: 64, description: 'An IPv4 or IPv6 address or CIDR.' }), {
          maxItems: 32,
          description: "Where alerts may come from (e.g. TradingView's four addresses); absent or null: anywhere.",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type HookCreateBody = Static<typeof HookCreateBody>;

/** An entry of allowed_ips that is no address or CIDR: its index, for the 422. */
export const badAddressIndex = (list: readonly string[] | null | undefined) =>
  (list ?? []).findIndex((entry) => !isIpOrCidr(entry));

export const HookIdParams = Type.Object({ hook_id: Uuid('The hook.') });

const hookFields = {
  id: Uuid('The hook.'),
  name: Type.String({ description: "The hook's name." }),
  mode: StringEnum(SIGNAL_MODES, { description: '`paper` or `live`.' }),
  exchange: Type.String({ description: 'The venue orders go to.' }),
  url: Type.String({ description: 'Where TradingView posts the alerts (the alert webhook URL).' }),
  max_lag_seconds: Type.Integer({ description: 'Staleness bound of an alert, in seconds.' }),
  allowed_ips: Nullable(Type.Array(Type.String(), { description: 'Where alerts may come from; null: anywhere.' })),
  created_at: DateTime('When the hook was made.'),
};

export const HookWithSecret = Type.Object(
  {
    ...hookFields,
    secret: Type.String({ description: 'The secret alerts carry in `secret` (or `SECRET=`). Shown this once.' }),
  },
  { title: 'SignalHookWithSecret' },
);
export type HookWithSecret = Static<typeof HookWithSecret>;

export const Hook = Type.Object(
  {
    ...hookFields,
    alerts_accepted: Type.Integer({ description: 'Alerts that made an order.' }),
    alerts_refused: Type.Integer({ description: 'Alerts answered 401, 413, 422 or 429 (repeats count in neither).' }),
    last_alert_at: Nullable(DateTime("When the last alert that proved the hook's secret came.")),
    last_error: Nullable(
      Type.String({
        description:
          "Why the last alert that proved the hook's secret and made no order made none. Alerts that prove nothing (a wrong secret, a body of neither form, one over 16 KiB) only count in alerts_refused.",
      }),
    ),
  },
  { title: 'SignalHook' },
);
export type Hook = Static<typeof Hook>;

export const HookList = Type.Object({ hooks: Type.Array(Hook, { description: 'Your hooks, oldest first.' }) });
export type HookList = Static<typeof HookList>;

export const AlertAccepted = Type.Object(
  {
    accepted: Type.Boolean({ description: 'Always true.' }),
    order_id: Nullable(Uuid('The order the alert made (for a repeat: the first copy’s order).')),
  },
  { title: 'SignalAlertAccepted' },
);
export type AlertAccepted = Static<typeof AlertAccepted>;

// The auth provider's hooks (Supabase Auth): the custom-access-token hook adds our role and tier to
// the token's claims; the send-email hook sends the auth mails through our outbox.
import { Type } from 'typebox';
import { bearerScheme, headerScheme } from '../../../platform/http/openapi.ts';
import { StringEnum } from '../../../platform/http/schemas.ts';
import { ROLES, TIERS } from '../../users/index.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { isVerdict, OK, standardWebhookCheck, verifyBearer } from '../signatures.ts';
import { authHookMails } from './auth-hook.mails.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import {
  header,
  optionalHeader,
  processed,
  refused,
  RETRY_WINDOW_MS,
  str,
  type EffectContext as AnyEffectContext,
  type HookAnswer,
  type Json,
  type Outcome,
} from './provider.ts';

type EffectContext = AnyEffectContext<'findIdentity' | 'mail' | 'isSuppressed'>;

/** Our claims, beside the provider's own `role` (its database role), which must stay untouched. */
const ROLE_CLAIM = 'user_role';
const TIER_CLAIM = 'subscription_tier';

/**
 * An error as the auth provider reads it (`error.message` of a non-2xx answer) beside our clients'
 * `detail`: a 422's list of items keeps its `detail`, with a message of its own.
 */
function errorBody(status: number, detail: unknown): Record<string, unknown> {
  const message = typeof detail === 'string' ? detail : 'Request validation failed';
  return { detail, error: { http_code: status, message } };
}

function hookError(status: number, message: string): HookAnswer {
  return { status, body: errorBody(status, message) };
}

const HookError = Type.Object(
  {
    detail: Type.Unknown({ description: 'What went wrong (the Pydantic-shaped list of items for a 422).' }),
    error: Type.Optional(
      Type.Object({
        http_code: Type.Integer({ description: 'The HTTP status, repeated as the auth provider expects.' }),
        message: Type.String({ description: 'What went wrong.' }),
      }),
    ),
  },
  { description: "Error, in our shape and in the auth provider's." },
);

const AuthHookAnswer = Type.Object(
  {
    claims: Type.Optional(
      Type.Object(
        {
          user_role: Type.Optional(StringEnum(ROLES, { description: 'Our role of the user (`user`, `admin`).' })),
          subscription_tier: Type.Optional(StringEnum(TIERS, { description: 'Our subscription tier of the user.' })),
        },
        {
          additionalProperties: true,
          description: "The provider's claims, all kept, plus ours when the user is known to us.",
        },
      ),
    ),
  },
  { description: '`{claims}` for the custom access token hook; `{}` for the send email hook.' },
);

function hookKind(body: Json): 'custom_access_token' | 'send_email' | 'unknown' {
  if (body.claims !== undefined) return 'custom_access_token';
  if (body.email_data !== undefined) return 'send_email';
  return 'unknown';
}

/**
 * Whose role and tier the token may carry: the account the provider's user signs in as with it
 * (decision 009), never the one an address merely names. An anonymous user, an address the provider
 * has not verified (by its top-level `email_verified`, decision 900), or the address of an account
 * linked to another user of the provider is nobody of ours (decision 960).
 */
function accountOf(context: EffectContext, claims: Json, userId: string | undefined) {
  const issuer = str(claims.iss);
  const subject = str(claims.sub) ?? userId;
  if (!issuer || !subject || claims.is_anonymous === true) return undefined;
  // The provider's own claim, never `user_metadata`, which the user writes (decision 900).
  return context.findIdentity({
    issuer,
    subject,
    email: str(claims.email),
    emailVerified: claims.email_verified === true,
  });
}

async function accessToken(context: EffectContext): Promise<HookAnswer> {
  const { body } = context;
  if (!body.claims || typeof body.claims !== 'object' || Array.isArray(body.claims)) {
    return hookError(400, 'claims must be an object');
  }
  const claims = { ...(body.claims as Json) };
  const user = await accountOf(context, claims, str(body.user_id));
  // Someone we do not know keeps the provider's claims unchanged.
  if (!user) return { status: 200, body: { claims } };
  if (user.status !== 'active') return hookError(403, `User account is ${user.status}`);
  return { status: 200, body: { claims: { ...claims, [ROLE_CLAIM]: user.role, [TIER_CLAIM]: user.subscriptionTier } } };
}

const unknownHook = () =>
  hookError(400, 'Expected a custom access token hook ({user_id, claims}) or a send email hook ({user, email_data})');

const SUPPRESSED = 'Mail to this address is suppressed after a bounce or complaint';

async function sendEmail(context: EffectContext): Promise<HookAnswer> {
  const mails = authHookMails(context.body);
  if (mails.length === 0) return hookError(400, 'user.email is required');
  let suppressed = false;
  for (const { part, ...mail } of mails) {
    const { queued } = await context.mail(mail, part);
    suppressed ||= !queued;
  }
  // The auth server reports a failed send to the user; better than waiting for a mail that never comes.
  return suppressed ? hookError(400, SUPPRESSED) : { status: 200, body: {} };
}

/** The hook answers with data: a 4xx refuses the delivery, anything else is its processed answer. */
const outcomeOf = (answer: HookAnswer): Outcome => (answer.status >= 400 ? refused(answer) : processed(answer));

export const authproviderProvider = defineWebhookProvider({
  provider: 'authprovider',
  name: 'Auth provider',
  secretVariable: 'AUTHPROVIDER_HOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/authprovider/auth-hook',
    operationId: 'receiveAuthProviderHook',
    summary: 'Auth provider (Supabase Auth) hook: custom access token or send email',
    description:
      'Custom access token hook: `{user_id, claims, authentication_method}` answers `{claims}` with ' +
      'every claim kept and, for a user of ours (the account linked to `claims.iss` and `claims.sub`, else ' +
      'the one with `claims.email` when the provider verified it (a top-level `email_verified: true`, never ' +
      '`user_metadata`) and no other of its users is linked to ' +
      'that account; never an anonymous user), `user_role` and ' +
      '`subscription_tier` added; a suspended or deleted user answers 403. Send email hook: `{user, ' +
      'email_data}` queues the mail (subject and text by `email_action_type`, with the code and the ' +
      'verification link) and answers `{}`; 400 when the address is suppressed. Errors carry `{"error": ' +
      '{"http_code", "message"}}` beside `detail`. Authenticated by `Authorization: Bearer <secret>` or ' +
      'a Standard Webhooks signature.',
    headers: Type.Object({
      authorization: optionalHeader(
        '`Bearer <AUTHPROVIDER_HOOK_SECRET>`; or sign with the Standard Webhooks headers instead.',
      ),
      'webhook-id': optionalHeader('Standard Webhooks message id.'),
      'webhook-timestamp': optionalHeader('Standard Webhooks timestamp (unix seconds), within 300 s.'),
      'webhook-signature': optionalHeader(
        '`v1,<base64 HMAC-SHA256>` over `id.timestamp.body`, keyed with the `v1,whsec_...` secret.',
      ),
    }),
    response: AuthHookAnswer,
    errors: { schema: HookError, statuses: [400, 401, 403, 413, 415, 422, 429, 500, 503], body: errorBody },
  },
  bodyLimit: 4 * MiB,
  security: {
    authHookSecret: bearerScheme('`Bearer <AUTHPROVIDER_HOOK_SECRET>` (Supabase auth hooks).'),
    authHookSignature: headerScheme(
      'webhook-signature',
      'Standard Webhooks: `v1,<base64 HMAC-SHA256>` over `webhook-id.webhook-timestamp.body`, keyed with the ' +
        '`v1,whsec_...` secret; with `webhook-id` and `webhook-timestamp` (within 300 s).',
    ),
  },
  // The send-email hook's one-time codes are not kept.
  redact: redactSecrets,
  signature(headers, secret) {
    const bearer = header(headers, 'authorization');
    const byBearer = verifyBearer(bearer, secret);
    const standard = {
      id: header(headers, 'webhook-id'),
      timestamp: header(headers, 'webhook-timestamp'),
      signature: header(headers, 'webhook-signature'),
    };
    if (byBearer.ok || !(standard.id || standard.timestamp || standard.signature)) return byBearer;
    const check = standardWebhookCheck(standard, secret);
    // With a wrong bearer beside a signature that fails too, the bearer's refusal is the one to tell.
    if (!bearer) return check;
    if (isVerdict(check)) return check.ok ? check : byBearer;
    return { ...check, judge: (mac, now) => (check.judge(mac, now).ok ? OK : byBearer) };
  },
  identify: (delivery) => ({
    // The id is signed only in the Standard Webhooks form; a bearer vouches for no part of the request.
    senderId: header(delivery.headers, 'webhook-id'),
    sameBodyWindowMs: RETRY_WINDOW_MS,
    event: hookKind(delivery.body),
  }),
  ports: ['findIdentity', 'mail', 'isSuppressed'],
  async apply(context) {
    if (context.event === 'custom_access_token') return outcomeOf(await accessToken(context));
    if (context.event === 'send_email') return outcomeOf(await sendEmail(context));
    return refused(unknownHook());
  },
  async replay(context) {
    // A token request asked again is answered again (reads only); a mail already queued is not re-sent.
    if (context.event === 'custom_access_token') return accessToken(context);
    if (context.event !== 'send_email') return unknownHook();
    for (const mail of authHookMails(context.body)) {
      if (await context.isSuppressed(mail.to)) return hookError(400, SUPPRESSED);
    }
    return { status: 200, body: {} };
  },
});

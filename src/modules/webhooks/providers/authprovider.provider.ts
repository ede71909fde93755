// The auth provider's hooks (Supabase Auth): the custom-access-token hook adds our role and tier to
// the token's claims; the send-email hook sends the auth mails through our outbox.
import { isVerdict, OK, standardWebhookCheck, verifyBearer } from '../signatures.ts';
import { authHookMails } from './auth-hook.mails.ts';
import {
  header,
  processed,
  refused,
  RETRY_WINDOW_MS,
  str,
  type EffectContext,
  type HookAnswer,
  type Json,
  type Outcome,
  type ProviderHandler,
} from './provider.ts';

/** Our claims, beside the provider's own `role` (its database role), which must stay untouched. */
const ROLE_CLAIM = 'user_role';
const TIER_CLAIM = 'subscription_tier';

export function hookError(status: number, message: string): HookAnswer {
  return { status, body: { detail: message, error: { http_code: status, message } } };
}

function hookKind(body: Json): 'custom_access_token' | 'send_email' | 'unknown' {
  if (body.claims !== undefined) return 'custom_access_token';
  if (body.email_data !== undefined) return 'send_email';
  return 'unknown';
}

async function accessToken(context: EffectContext): Promise<HookAnswer> {
  const { body } = context;
  if (!body.claims || typeof body.claims !== 'object' || Array.isArray(body.claims)) {
    return hookError(400, 'claims must be an object');
  }
  const claims = { ...(body.claims as Json) };
  const email = str(claims.email);
  const userId = str(body.user_id) ?? str(claims.sub);
  const user =
    (email ? await context.findUser({ email }) : undefined) ??
    (userId ? await context.findUser({ id: userId }) : undefined);
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

export const authproviderHandler: ProviderHandler = {
  provider: 'authprovider',
  name: 'Auth provider',
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
};

// The mails of the auth provider's send-email hook, built from its `{user, email_data}` input.
import type { MailMessage } from '../../notifications/index.ts';
import { obj, str, type Json } from './provider.ts';

const SUBJECTS: Record<string, string> = {
  signup: 'Confirm your sign-up',
  invite: 'You have been invited',
  magiclink: 'Your sign-in link',
  recovery: 'Reset your password',
  email_change: 'Confirm your e-mail address change',
  email: 'Your sign-in code',
  reauthentication: 'Confirm it is you',
  password_changed_notification: 'Your password was changed',
  email_changed_notification: 'Your e-mail address was changed',
  phone_changed_notification: 'Your phone number was changed',
  identity_linked_notification: 'A sign-in method was linked to your account',
  identity_unlinked_notification: 'A sign-in method was removed from your account',
  mfa_factor_enrolled_notification: 'A second factor was added to your account',
  mfa_factor_unenrolled_notification: 'A second factor was removed from your account',
};

const INTROS: Record<string, string> = {
  signup: 'Welcome! Confirm your e-mail address to finish signing up.',
  invite: 'You have been invited to create an account.',
  magiclink: 'Use this link to sign in.',
  recovery: 'Someone asked to reset the password of your account. Use this link to choose a new one.',
  email_change: 'Confirm the change of the e-mail address of your account.',
  email: 'Use this code to sign in.',
  reauthentication: 'Enter this code to confirm it is you.',
};

/** Action types whose token hash can be redeemed at the auth server's /verify endpoint. */
const LINKED = new Set(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email']);

interface HookMail extends MailMessage {
  /** Tells the mails of one hook call apart (email_change may send two). */
  part: string;
}

/**
 * The auth server's verification link: `site_url` in the hook input is the auth server's external
 * URL, whose /verify redeems the token hash and then redirects to `redirect_to`.
 */
export function verifyLink(
  siteUrl: string | undefined,
  tokenHash: string | undefined,
  type: string,
  redirectTo: string | undefined,
): string | undefined {
  if (!siteUrl || !tokenHash || !LINKED.has(type)) return undefined;
  // Only a web address makes a link to click (decision 962): anything else leaves the mail its code,
  // rather than failing the hook with a 500 or putting a `javascript:` link in a mail.
  const site = URL.canParse(siteUrl) ? new URL(siteUrl) : undefined;
  if (!site || (site.protocol !== 'https:' && site.protocol !== 'http:')) return undefined;
  let end = site.pathname.length;
  while (end > 0 && site.pathname[end - 1] === '/') end--;
  const url = new URL(`${site.origin}${site.pathname.slice(0, end)}/verify`);
  url.searchParams.set('token', tokenHash);
  url.searchParams.set('type', type);
  if (redirectTo) url.searchParams.set('redirect_to', redirectTo);
  return url.toString();
}

function compose(
  type: string,
  to: string,
  token: string | undefined,
  link: string | undefined,
  part: string,
): HookMail {
  const lines = [INTROS[type] ?? (SUBJECTS[type] ? `${SUBJECTS[type]}.` : 'There is news about your account.')];
  if (link) lines.push('', link);
  if (token) lines.push('', `${link ? 'Or enter this code' : 'Code'}: ${token}`);
  lines.push(
    '',
    link || token
      ? 'If you did not ask for this, you can ignore this e-mail.'
      : 'If this was not you, contact support at once.',
  );
  return {
    to,
    subject: SUBJECTS[type] ?? 'About your account',
    text: lines.join('\n'),
    // A sign-in link or code is a credential: sealed in the outbox, wiped once sent.
    sensitive: Boolean(link || token),
    part,
  };
}

/** The mails to send for one send-email hook call; empty when there is no recipient. */
export function authHookMails(body: Json): HookMail[] {
  const user = obj(body.user);
  const data = obj(body.email_data);
  const type = str(data.email_action_type) ?? 'unknown';
  const current = str(user.email);
  const next = str(user.new_email) ?? str(user.email_new);
  const site = str(data.site_url);
  const redirect = str(data.redirect_to);
  const token = str(data.token);
  const tokenHash = str(data.token_hash);
  const tokenNew = str(data.token_new);
  const tokenHashNew = str(data.token_hash_new);

  if (type === 'email_change' && tokenHash && tokenHashNew && current && next) {
    // Secure e-mail change; the auth server's historical naming pairs `token` with
    // `token_hash_new` (current address) and `token_new` with `token_hash` (new address).
    return [
      compose(type, current, token, verifyLink(site, tokenHashNew, type, redirect), 'current'),
      compose(type, next, tokenNew, verifyLink(site, tokenHash, type, redirect), 'new'),
    ];
  }
  const to = type === 'email_change' ? (next ?? current) : current;
  if (!to) return [];
  const hash = tokenHash ?? tokenHashNew;
  return [compose(type, to, token ?? tokenNew, verifyLink(site, hash, type, redirect), 'main')];
}

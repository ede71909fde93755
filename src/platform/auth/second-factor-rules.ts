// The two questions every rule about second factors asks (decisions 142, 143, 204), answered once for
// TOTP and passkeys alike: does the account have a second factor, and did this session present one
// recently enough. The guards use them; the users module's index exports them to other modules
// (trading's live-order rule, for one).

/** Whether the account has a second factor: a TOTP authenticator, a passkey, or both. */
export function hasSecondFactor(account: { twoFactorEnabled: boolean }): boolean {
  return account.twoFactorEnabled;
}

/**
 * Whether the session presented a second factor (a TOTP code, a recovery code or a passkey: `mfa` in
 * its access token's `amr`) no longer than `maxAgeMs` before `now` (its `auth_time`).
 */
export function hasFreshSecondFactor(
  authentication: { amr?: readonly string[]; authTime?: number },
  now: Date,
  maxAgeMs: number,
): boolean {
  return (
    authentication.amr?.includes('mfa') === true &&
    authentication.authTime !== undefined &&
    now.getTime() - authentication.authTime * 1000 <= maxAgeMs
  );
}

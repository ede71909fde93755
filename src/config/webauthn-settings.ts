// The passkey settings (WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS; decision 204), read by
// config.ts with every other setting.
import { isIP } from 'node:net';
import type { EnvReader } from './env-reader.ts';

export interface WebauthnSettings {
  /** The relying party's id: a registrable suffix of every origin's host (WEBAUTHN_RP_ID). */
  readonly rpId: string;
  /** Shown by the browser when a passkey is made (WEBAUTHN_RP_NAME). */
  readonly rpName: string;
  /** The origins a ceremony may come from, e.g. `https://trade.example.com` (WEBAUTHN_ORIGINS). */
  readonly origins: readonly string[];
}

/**
 * Passkeys (decision 204): a browser binds each to the RP ID, so an RP ID that is not the host, or a
 * parent domain, of every origin would answer options no browser accepts; that start stops here.
 */
export function readWebauthn(env: EnvReader): WebauthnSettings {
  // The default follows PORT; a PORT that is not a port is reported once, as PORT's own problem.
  const rawPort = env.string('PORT') ?? '8000';
  const port = /^\d{1,5}$/.test(rawPort) ? rawPort : '8000';
  const origins = (env.string('WEBAUTHN_ORIGINS') ?? `http://localhost:${port}`)
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const hosts: string[] = [];
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // Reported below.
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) {
      env.problems.push(`WEBAUTHN_ORIGINS must list origins such as https://example.com (got "${origin}")`);
      continue;
    }
    hosts.push(parsed.hostname);
  }
  const rpId = (env.string('WEBAUTHN_RP_ID') ?? hosts[0] ?? 'localhost').toLowerCase();
  if (isIP(rpId.replace(/^\[|\]$/g, '')) !== 0) {
    env.problems.push(`WEBAUTHN_RP_ID must be a domain name, not an IP address (got "${rpId}")`);
  } else {
    const outside = hosts.filter((host) => host !== rpId && !host.endsWith(`.${rpId}`));
    if (outside.length > 0)
      env.problems.push(
        `WEBAUTHN_RP_ID "${rpId}" must be the host, or a parent domain, of every WEBAUTHN_ORIGINS origin ` +
          `(not of ${outside.join(', ')})`,
      );
  }
  return {
    rpId,
    rpName: env.string('WEBAUTHN_RP_NAME') ?? 'Trading Platform',
    origins: origins.map((origin) => origin.replace(/\/$/, '')),
  };
}

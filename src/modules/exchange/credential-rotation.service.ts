// Re-sealing stored credentials under the current encryption key, for the rotate-api-keys job: after
// it has run, keys listed in ENCRYPTION_KEYS_OLD are no longer needed to read any credential.
import type { Logger } from 'pino';
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Db } from '../../platform/db/database.ts';
import { sealedAt } from './credentials.domain.ts';
import type { CredentialsRepository } from './credentials.repository.ts';

const PAGE_SIZE = 200;

export function createCredentialRotation(deps: {
  db: Db;
  repo: CredentialsRepository;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
}) {
  const { repo, secretBox } = deps;

  return {
    /**
     * Every ciphertext sealed under a retired key, or not yet bound to its row and column, is sealed
     * again under the current key and bound. A credential
     * sealed under a key no longer configured cannot be read: it is skipped and counted as
     * `unreadable` (the user must enter it again), as provider keys do; one such row never stops the rest.
     */
    async reencryptAll(): Promise<{ scanned: number; reencrypted: number; unreadable: number }> {
      let scanned = 0;
      let reencrypted = 0;
      let unreadable = 0;
      let afterId: string | null = null;
      for (;;) {
        const page = await repo.sealedPage(afterId, PAGE_SIZE);
        if (page.length === 0) break;
        for (const row of page) {
          scanned += 1;
          const stale =
            secretBox.isStale(row.apiKeySealed) ||
            secretBox.isStale(row.apiSecretSealed) ||
            (row.apiPassphraseSealed !== null && secretBox.isStale(row.apiPassphraseSealed));
          if (!stale) continue;
          let after: { apiKeySealed: string; apiSecretSealed: string; apiPassphraseSealed: string | null };
          try {
            after = {
              apiKeySealed: secretBox.reseal(row.apiKeySealed, sealedAt(row.id, 'api_key_sealed')),
              apiSecretSealed: secretBox.reseal(row.apiSecretSealed, sealedAt(row.id, 'api_secret_sealed')),
              apiPassphraseSealed:
                row.apiPassphraseSealed === null
                  ? null
                  : secretBox.reseal(row.apiPassphraseSealed, sealedAt(row.id, 'api_passphrase_sealed')),
            };
          } catch (error) {
            unreadable += 1;
            deps.logger.warn({ credentialId: row.id, err: error }, 'exchange credential could not be re-encrypted');
            continue;
          }
          // A credential updated meanwhile already carries fresh ciphertexts; nothing to do then.
          if (await repo.replaceSealed(row.id, row, after)) reencrypted += 1;
        }
        afterId = page[page.length - 1]!.id;
      }
      if (reencrypted > 0) {
        await audit(
          {
            actorType: 'job',
            action: 'exchange.credentials.reencrypt',
            targetType: 'exchange_credential',
            details: { scanned, reencrypted, key_id: secretBox.currentKeyId },
          },
          deps.clock.now(),
          deps.db,
        );
        deps.logger.info({ scanned, reencrypted }, 're-encrypted exchange credentials under the current key');
      }
      return { scanned, reencrypted, unreadable };
    },
  };
}

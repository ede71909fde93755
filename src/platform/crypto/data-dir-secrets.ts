// The two secrets a start needs but nobody has to configure: JWT_SECRET and ENCRYPTION_KEY. Given
// in the environment, they are used as given; otherwise each is generated once into DATA_DIR,
// readable by the service's user only, and read from there on every later start.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from '../../config/config.ts';
import { EnvReader } from '../../config/env-reader.ts';

export type GeneratedSecret = 'JWT_SECRET' | 'ENCRYPTION_KEY';
/** The environment, a file in DATA_DIR written by an earlier start, or a file this start wrote. */
export type SecretSource = 'environment' | 'file' | 'generated';

interface Secrets {
  readonly jwtSecret: string;
  readonly encryptionKey: Buffer;
  readonly oldEncryptionKeys: readonly Buffer[];
  readonly sources: Readonly<Record<GeneratedSecret, SecretSource>>;
}

const FILES: Record<GeneratedSecret, { file: string; generate: () => string }> = {
  JWT_SECRET: { file: 'jwt-secret', generate: () => randomBytes(48).toString('base64url') },
  ENCRYPTION_KEY: { file: 'encryption-key', generate: () => randomBytes(32).toString('base64') },
};

/**
 * Reads the file of an unset secret, creating it first when it does not exist. Written under a
 * temporary name and linked into place, so two processes starting together agree on one value
 * and never read a half-written file.
 */
function keptSecret(
  dataDir: string,
  variable: GeneratedSecret,
  problems: string[],
): { value: string; source: SecretSource } {
  const { file, generate } = FILES[variable];
  const location = path.join(dataDir, file);
  let source: SecretSource = 'file';
  try {
    if (!existsSync(location)) {
      source = 'generated';
      mkdirSync(dataDir, { recursive: true });
      const temporary = `${location}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(temporary, `${generate()}\n`, { mode: 0o600, flag: 'wx' });
      try {
        linkSync(temporary, location);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        source = 'file';
      } finally {
        unlinkSync(temporary);
      }
    }
    return { value: readFileSync(location, 'utf8').trim(), source };
  } catch (error) {
    problems.push(`${variable} is unset and ${location} cannot be created or read (${(error as Error).message})`);
    return { value: '', source };
  }
}

/** The secrets of this start; a problem (an unusable DATA_DIR, a damaged file) is a ConfigError, one line each. */
export function resolveSecrets(config: Pick<Config, 'dataDir' | 'secrets'>): Secrets {
  const problems: string[] = [];
  const sources: Record<GeneratedSecret, SecretSource> = { JWT_SECRET: 'environment', ENCRYPTION_KEY: 'environment' };

  let jwtSecret = config.secrets.jwtSecret;
  if (jwtSecret === undefined) {
    const kept = keptSecret(config.dataDir, 'JWT_SECRET', problems);
    sources.JWT_SECRET = kept.source;
    jwtSecret = kept.value;
    if (jwtSecret && jwtSecret.length < 32)
      problems.push(`JWT_SECRET in ${path.join(config.dataDir, FILES.JWT_SECRET.file)} must be at least 32 characters`);
  }

  let encryptionKey = config.secrets.encryptionKey;
  if (encryptionKey === undefined) {
    const kept = keptSecret(config.dataDir, 'ENCRYPTION_KEY', problems);
    sources.ENCRYPTION_KEY = kept.source;
    const reader = new EnvReader({});
    encryptionKey = kept.value
      ? reader.key(`ENCRYPTION_KEY in ${path.join(config.dataDir, FILES.ENCRYPTION_KEY.file)}`, kept.value)
      : Buffer.alloc(32);
    problems.push(...reader.problems);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { jwtSecret, encryptionKey, oldEncryptionKeys: config.secrets.oldEncryptionKeys, sources };
}

// Secrets that need no setup (generated once into DATA_DIR, owner-only) and the secret box that
// keeps old ciphertexts readable across a key change.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import { resolveSecrets } from '../../../src/platform/crypto/data-dir-secrets.ts';
import { createSecretBox } from '../../../src/platform/crypto/secret-box.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tempDir = () => mkdtempSync(path.join(tmpdir(), 'tp-secrets-'));
const mode = (file: string) => statSync(file).mode & 0o777;

describe('secrets kept in DATA_DIR', () => {
  it('reading the configuration writes nothing', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    assert.equal(config.secrets.jwtSecret, undefined);
    assert.equal(config.secrets.encryptionKey, undefined);
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('JWT_SECRET and ENCRYPTION_KEY are generated into DATA_DIR with mode 0600 when unset', () => {
    const dataDir = tempDir();
    const secrets = resolveSecrets(loadConfig({ DATA_DIR: dataDir }));
    assert.equal(mode(path.join(dataDir, 'jwt-secret')), 0o600);
    assert.equal(mode(path.join(dataDir, 'encryption-key')), 0o600);
    assert.ok(secrets.jwtSecret.length >= 32);
    assert.equal(secrets.encryptionKey.length, 32);
    assert.deepEqual(secrets.sources, { JWT_SECRET: 'generated', ENCRYPTION_KEY: 'generated' });
    assert.deepEqual(readdirSync(dataDir).sort(), ['encryption-key', 'jwt-secret'], 'no temporary files are left');
  });

  it('are the same on the next start', () => {
    const dataDir = tempDir();
    const first = resolveSecrets(loadConfig({ DATA_DIR: dataDir }));
    const second = resolveSecrets(loadConfig({ DATA_DIR: dataDir }));
    assert.equal(second.jwtSecret, first.jwtSecret);
    assert.ok(second.encryptionKey.equals(first.encryptionKey));
    assert.deepEqual(second.sources, { JWT_SECRET: 'file', ENCRYPTION_KEY: 'file' });
  });

  it('are not written when configured', () => {
    const dataDir = tempDir();
    const key = randomBytes(32).toString('base64');
    const secrets = resolveSecrets(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'j'.repeat(40), ENCRYPTION_KEY: key }));
    assert.equal(secrets.jwtSecret, 'j'.repeat(40));
    assert.equal(secrets.encryptionKey.toString('base64'), key);
    assert.deepEqual(secrets.sources, { JWT_SECRET: 'environment', ENCRYPTION_KEY: 'environment' });
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('processes starting together on one DATA_DIR all end up with the same secrets', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const script = `import { loadConfig } from './src/config/config.ts';
      import { resolveSecrets } from './src/platform/crypto/data-dir-secrets.ts';
      const s = resolveSecrets(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)} }));
      process.stdout.write(s.jwtSecret + ' ' + s.encryptionKey.toString('base64'));`;
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => (out += String(chunk)));
        return new Promise<string>((resolve, reject) =>
          child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`)))),
        );
      }),
    );
    assert.equal(new Set(outputs).size, 1, 'every process read the same secrets');
    assert.deepEqual(readdirSync(dataDir).sort(), ['encryption-key', 'jwt-secret']);
  });

  it('an unusable DATA_DIR, a damaged file or a bad key is a configuration problem, one line each', () => {
    const file = path.join(tempDir(), 'not-a-directory');
    writeFileSync(file, '');
    assert.throws(
      () => resolveSecrets(loadConfig({ DATA_DIR: path.join(file, 'data') })),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 2);
        assert.match(error.problems[0]!, /^JWT_SECRET is unset and .+jwt-secret cannot be created or read/);
        assert.match(error.problems[1]!, /^ENCRYPTION_KEY is unset and .+encryption-key cannot be created or read/);
        return true;
      },
    );
    const damaged = tempDir();
    writeFileSync(path.join(damaged, 'jwt-secret'), 'short\n');
    writeFileSync(path.join(damaged, 'encryption-key'), 'abc\n');
    assert.throws(
      () => resolveSecrets(loadConfig({ DATA_DIR: damaged })),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 2 &&
        /^JWT_SECRET in .+jwt-secret must be at least 32 characters$/.test(error.problems[0]!) &&
        /^ENCRYPTION_KEY in .+encryption-key must be 32 bytes encoded as base64$/.test(error.problems[1]!),
    );
    assert.throws(
      () => loadConfig({ DATA_DIR: tempDir(), JWT_SECRET: 'short', ENCRYPTION_KEY: 'abc', ENCRYPTION_KEYS_OLD: 'zz' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        JSON.stringify(error.problems.sort()) ===
          JSON.stringify([
            'ENCRYPTION_KEY must be 32 bytes encoded as base64',
            'ENCRYPTION_KEYS_OLD must be 32 bytes encoded as base64',
            'JWT_SECRET must be at least 32 characters',
          ]),
    );
  });
});

describe('secret box', () => {
  const keyA = Buffer.alloc(32, 0xa1);
  // Its id: the first 12 hex digits of its SHA-256.
  const KEY_A_ID = '52fe6094743b';
  const keyB = randomBytes(32);
  const here = {
    table: 'exchange_credentials',
    column: 'api_secret_sealed',
    row: '7b0d1c2e-0000-4000-8000-000000000001',
  };

  it('seals with AES-256-GCM under the current key id; the plaintext is nowhere in it', () => {
    const box = createSecretBox(keyA);
    const sealed = box.seal('api-secret-value', here);
    assert.match(sealed, new RegExp(`^v2:${KEY_A_ID}:`));
    assert.ok(!sealed.includes('api-secret-value'));
    assert.notEqual(box.seal('api-secret-value', here), sealed, 'a fresh IV every time');
    assert.equal(box.open(sealed, here), 'api-secret-value');
  });

  it('opens a value only where it was sealed: another row, column or table refuses it', () => {
    const box = createSecretBox(keyA);
    const sealed = box.seal('api-secret-value', here);
    assert.throws(() => box.open(sealed, { ...here, row: '7b0d1c2e-0000-4000-8000-000000000002' }));
    assert.throws(() => box.open(sealed, { ...here, column: 'api_key_sealed' }));
    assert.throws(() => box.open(sealed, { ...here, table: 'provider_api_keys' }));
    assert.equal(box.open(sealed, here), 'api-secret-value', 'the control: it opens where it belongs');
  });

  it('refuses a tampered ciphertext', () => {
    const box = createSecretBox(keyA);
    const parts = box.seal('value', here).split(':');
    const data = Buffer.from(parts[4]!, 'base64');
    data[0]! ^= 1;
    parts[4] = data.toString('base64');
    assert.throws(() => box.open(parts.join(':'), here));
  });

  it('refuses a truncated authentication tag, which GCM alone would check against fewer bits', () => {
    const box = createSecretBox(keyA);
    const sealed = box.seal('value', here);
    const parts = sealed.split(':');
    parts[3] = Buffer.from(parts[3]!, 'base64').subarray(0, 4).toString('base64');
    assert.throws(() => box.open(parts.join(':'), here), /not a sealed value/);
  });

  it('reads a value sealed before values were bound (v1), calls it stale, and reseals it bound', () => {
    // A v1 value as the earlier code wrote it: no additional authenticated data.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyA, iv);
    const data = Buffer.concat([cipher.update('legacy-secret', 'utf8'), cipher.final()]);
    const legacy = [
      'v1',
      KEY_A_ID,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      data.toString('base64'),
    ].join(':');
    const box = createSecretBox(keyA);
    assert.equal(box.open(legacy, here), 'legacy-secret');
    assert.equal(box.isStale(legacy), true, 'unbound values are re-sealed by the rotation job');
    const resealed = box.reseal(legacy, here);
    assert.match(resealed, /^v2:/);
    assert.equal(box.isStale(resealed), false);
    assert.equal(box.open(resealed, here), 'legacy-secret');
    assert.throws(() => box.open(resealed, { ...here, row: 'elsewhere' }), 'bound once resealed');
  });

  it(
    'after a key change, old ciphertexts open with ' + 'ENCRYPTION_KEYS_OLD, are stale, and reseal under the new key',
    () => {
      const before = createSecretBox(keyA).seal('rotate-me', here);
      const config = loadConfig({
        DATA_DIR: tempDir(),
        JWT_SECRET: 'j'.repeat(40),
        ENCRYPTION_KEY: keyB.toString('base64'),
        ENCRYPTION_KEYS_OLD: ` ${randomBytes(32).toString('base64')}, ${keyA.toString('base64')} `,
      });
      const box = createSecretBox(config.secrets.encryptionKey!, config.secrets.oldEncryptionKeys);
      assert.equal(box.open(before, here), 'rotate-me');
      assert.equal(box.isStale(before), true);

      const resealed = box.reseal(before, here);
      assert.notEqual(resealed, before);
      assert.equal(box.isStale(resealed), false);
      assert.equal(box.open(resealed, here), 'rotate-me');
      assert.equal(box.reseal(resealed, here), resealed, 'a current value is left as it is');
      // Once the old key is dropped, only the resealed value is readable.
      const withoutOld = createSecretBox(keyB);
      assert.equal(withoutOld.open(resealed, here), 'rotate-me');
      assert.throws(() => withoutOld.open(before, here), new RegExp(`no encryption key with id ${KEY_A_ID}`));
    },
  );

  it('refuses a key that is not 32 bytes', () => {
    assert.throws(() => createSecretBox(randomBytes(16)), /32 bytes/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeErrorText } from './safe-text.domain.ts';

describe('safe error text', () => {
  it('reduces a URL to its scheme and host: no credentials, no path, no query', () => {
    assert.equal(
      safeErrorText('chat webhook unreachable: POST https://hooks.slack.com/services/T000/B000/XXXXsecret failed'),
      'chat webhook unreachable: POST https://hooks.slack.com failed',
    );
    assert.equal(
      safeErrorText('connect to smtp://mailer:hunter2@mail.example.com:587 refused'),
      'connect to smtp://mail.example.com refused',
    );
    assert.equal(
      safeErrorText('GET http://127.0.0.1:4000/graphql?key=abc timed out'),
      'GET http://127.0.0.1 timed out',
    );
  });

  it('masks credentials after an auth scheme and long token-like strings', () => {
    assert.equal(
      safeErrorText('sent Authorization: Bearer lin_api_x1 and was refused'),
      'sent Authorization: Bearer [redacted] and was refused',
    );
    assert.equal(safeErrorText('key sk-proj-0123456789abcdefghijklmnop rejected'), 'key [redacted] rejected');
    assert.equal(safeErrorText('Slack answered 404 no_service'), 'Slack answered 404 no_service', 'plain words stay');
  });

  it("masks e-mail addresses, e.g. in an SMTP relay's refusal", () => {
    assert.equal(
      safeErrorText(
        "smtp: EENVELOPE 550: Can't send mail - all recipients were rejected: 550 5.1.1 " +
          '<jane.doe+alerts@mail.example.co.uk>: Recipient address rejected',
      ),
      "smtp: EENVELOPE 550: Can't send mail - all recipients were rejected: 550 5.1.1 " +
        '<[e-mail]>: Recipient address rejected',
    );
    assert.equal(
      safeErrorText("refused o'brien@[192.0.2.1], 'müller@bücher.de' and root@localhost"),
      "refused [e-mail], '[e-mail]' and [e-mail]",
    );
    assert.equal(
      safeErrorText('connect to smtp://user@mail.example.com:25 refused'),
      'connect to smtp://mail.example.com refused',
      'a URL stays a URL',
    );
  });

  it('collapses whitespace, caps the length and keeps null', () => {
    assert.equal(safeErrorText('a\n\n  b'), 'a b');
    const long = safeErrorText('word '.repeat(100))!;
    assert.equal(long.length, 200);
    assert.ok(long.endsWith('…'));
    assert.equal(safeErrorText(null), null);
    assert.equal(safeErrorText('   '), 'failed');
  });
});

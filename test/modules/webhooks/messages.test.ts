import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codehostMessage } from '../../../src/modules/webhooks/providers/codehost.provider.ts';
import { databaseMessage } from '../../../src/modules/webhooks/providers/database.provider.ts';
import { edgeMessage } from '../../../src/modules/webhooks/providers/edge.provider.ts';
import { errormonMessage } from '../../../src/modules/webhooks/providers/errormon.provider.ts';
import { addressesToSuppress } from '../../../src/modules/webhooks/providers/mailer.provider.ts';
import { trackerMessage } from '../../../src/modules/webhooks/providers/tracker.provider.ts';
import { authHookMails, verifyLink } from '../../../src/modules/webhooks/providers/auth-hook.mails.ts';

const repository = { full_name: 'acme/trading' };

describe('chat messages of code host events', () => {
  it('words pull request actions, with merged apart from closed', () => {
    const pr = (action: string, merged = false) =>
      codehostMessage('pull_request', {
        action,
        number: 7,
        pull_request: { title: 'T', merged, user: { login: 'u' } },
        repository,
      });
    assert.equal(pr('opened')?.title, '[acme/trading] Pull request #7 opened: T');
    assert.equal(pr('reopened')?.title, '[acme/trading] Pull request #7 reopened: T');
    assert.equal(pr('closed')?.title, '[acme/trading] Pull request #7 closed: T');
    assert.equal(pr('closed', true)?.title, '[acme/trading] Pull request #7 merged: T');
    assert.equal(pr('synchronize'), null);
    assert.equal(pr('labeled'), null);
  });

  it('tells pushes of tags and deleted branches, skips empty pushes, and caps the commit list', () => {
    assert.equal(
      codehostMessage('push', { ref: 'refs/tags/v1.0.0', repository, pusher: { name: 'ada' } })?.title,
      '[acme/trading] Tag v1.0.0 pushed by ada',
    );
    assert.equal(
      codehostMessage('push', { ref: 'refs/heads/old', deleted: true, repository, pusher: { name: 'ada' } })?.level,
      'warning',
    );
    assert.equal(codehostMessage('push', { ref: 'refs/heads/main', commits: [], repository }), null);
    const many = codehostMessage('push', {
      ref: 'refs/heads/main',
      commits: Array.from({ length: 8 }, (_, i) => ({ id: `${i}abcdef0`, message: `m${i}` })),
      repository,
    });
    assert.equal(many?.text.split('\n').length, 6);
    assert.match(String(many?.text), /…and 3 more$/);
  });

  it('ignores runs that did not fail and events it does not know', () => {
    assert.equal(
      codehostMessage('workflow_run', { action: 'completed', workflow_run: { conclusion: 'cancelled' } }),
      null,
    );
    assert.equal(codehostMessage('workflow_run', { action: 'requested', workflow_run: { conclusion: null } }), null);
    assert.equal(codehostMessage('release', { action: 'created', release: { tag_name: 'v1' } }), null);
    assert.equal(codehostMessage('star', { action: 'created' }), null);
  });
});

describe('chat messages of other providers', () => {
  it('words edge deployments that were canceled and ignores created ones', () => {
    assert.equal(
      edgeMessage('deployment.canceled', { payload: { deployment: { name: 'web' }, target: 'production' } })?.title,
      'Deployment of web (production) was canceled',
    );
    assert.equal(
      edgeMessage('deployment.ready', { payload: { deployment: { name: 'web', url: 'web-1.vercel.app' } } })?.url,
      'https://web-1.vercel.app',
    );
    assert.equal(edgeMessage('deployment.created', { payload: {} }), null);
  });

  it('words removed issues and ignores other entities', () => {
    assert.equal(
      trackerMessage('Issue', 'remove', { data: { identifier: 'ENG-1', title: 'Old' } })?.title,
      'Issue removed: ENG-1 Old',
    );
    assert.equal(trackerMessage('Comment', 'update', { data: {} }), null);
    assert.equal(trackerMessage('Project', 'create', { data: {} }), null);
  });

  it('words resolved issues, metric alert levels and new errors of the error monitor', () => {
    assert.equal(
      errormonMessage('issue', 'resolved', { data: { issue: { title: 'Boom', shortId: 'API-2' } } })?.level,
      'success',
    );
    assert.equal(errormonMessage('issue', 'assigned', { data: { issue: {} } }), null);
    assert.equal(
      errormonMessage('metric_alert', 'warning', { data: { description_title: 'Latency' } })?.level,
      'warning',
    );
    assert.equal(
      errormonMessage('metric_alert', 'resolved', { data: { description_title: 'Latency' } })?.level,
      'success',
    );
    assert.equal(
      errormonMessage('error', 'created', { data: { error: { title: 'Boom', level: 'fatal' } } })?.title,
      'Error: Boom',
    );
    assert.equal(errormonMessage('installation', 'created', { data: {} }), null);
  });

  it('tells sign-ups and removals on user tables only', () => {
    assert.equal(databaseMessage('INSERT', 'users', { record: { email: 'a@example.com' } })?.text, 'a@example.com');
    assert.equal(databaseMessage('DELETE', 'profiles', { old_record: { username: 'ada' } })?.title, 'User removed');
    assert.equal(databaseMessage('INSERT', 'orders', { record: {} }), null);
  });
});

describe('mail provider events', () => {
  it('suppresses lower-cased unique recipients of bounces and complaints only', () => {
    assert.deepEqual(addressesToSuppress('email.bounced', { data: { to: ['A@x.com', 'a@x.com', 'b@x.com'] } }), [
      'a@x.com',
      'b@x.com',
    ]);
    assert.deepEqual(addressesToSuppress('email.complained', { data: { to: 'c@x.com' } }), ['c@x.com']);
    assert.deepEqual(
      addressesToSuppress('email.bounced', { data: { to: ['d@x.com'], bounce: { type: 'Transient' } } }),
      [],
    );
    assert.deepEqual(addressesToSuppress('email.delivered', { data: { to: ['e@x.com'] } }), []);
  });
});

describe('auth hook mails', () => {
  it('links to the auth server only for redeemable action types', () => {
    assert.equal(
      verifyLink('http://localhost:9999/', 'h', 'magiclink', undefined),
      'http://localhost:9999/verify?token=h&type=magiclink',
    );
    assert.equal(verifyLink('http://localhost:9999', 'h', 'reauthentication', undefined), undefined);
  });

  it('sends a notification without code or link, unsealed', () => {
    const [mail] = authHookMails({
      user: { email: 'a@x.com' },
      email_data: { email_action_type: 'password_changed_notification', token: '', token_hash: '' },
    });
    assert.equal(mail?.subject, 'Your password was changed');
    assert.equal(mail?.sensitive, false);
    assert.match(String(mail?.text), /contact support/);
  });

  it('sends a non-secure e-mail change to the new address only', () => {
    const mails = authHookMails({
      user: { email: 'old@x.com', new_email: 'new@x.com' },
      email_data: {
        email_action_type: 'email_change',
        token: '123456',
        token_hash: 'hash',
        token_new: '',
        token_hash_new: '',
        site_url: 'http://auth',
      },
    });
    assert.deepEqual(
      mails.map((m) => m.to),
      ['new@x.com'],
    );
    assert.match(mails[0]!.text, /token=hash/);
  });
});

// Operator commands over accounts: create, list, promote, demote, name the owner, and the recovery
// path of a lost admin password. They act as the operator (`system` in the audit trail), through the same services
// as the HTTP API, so the same rules, audit rows and session revocations apply.
import { generatePassword } from '../platform/crypto/passwords.ts';
import { iso } from '../platform/http/schemas.ts';
import { ROLES, STATUSES } from '../modules/users/index.ts';
import { createModules } from '../app.ts';
import { parseOptions, print, Problems, requireEmail, withPlatform, type Command } from './cli-kit.ts';

const OPERATOR = { id: null };

function checkPassword(password: string | undefined, problems: Problems, required: boolean): void {
  if (password === undefined) {
    if (required) problems.add('--password is required');
  } else if (password.length < 8 || password.length > 128) {
    problems.add('--password must be 8 to 128 characters');
  }
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  values: readonly T[],
  problems: Problems,
): T | undefined {
  if (value !== undefined && !(values as readonly string[]).includes(value))
    problems.add(`--${name} must be one of ${values.join(', ')} (got "${value}")`);
  return value as T | undefined;
}

const create: Command = {
  usage:
    'users:create --email <email> --password <password> [--role user|admin] [--first-name <name>] [--last-name <name>]',
  summary: 'Create an account (as registration does, but also admins, and with sign-up closed).',
  async run(args) {
    const values = parseOptions(args, {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string', default: 'user' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    });
    const problems = new Problems();
    const email = requireEmail(values.email, problems);
    checkPassword(values.password, problems, true);
    const role = oneOf('role', values.role, ROLES, problems)!;
    problems.throwIfAny();
    await withPlatform(async (platform) => {
      const input = {
        email,
        password: values.password!,
        firstName: values['first-name'],
        lastName: values['last-name'],
      };
      const user = await createModules(platform).auth.service.createUser(input, { role, actor: 'system' });
      print(`created ${user.role} ${user.email} (id ${user.id})`);
    });
  },
};

const list: Command = {
  usage: 'users:list [--search <text>] [--role user|admin] [--status active|suspended|deleted] [--limit <1..100>]',
  summary: 'List accounts, newest first: id, e-mail, role, status, tier, created.',
  async run(args) {
    const values = parseOptions(args, {
      search: { type: 'string' },
      role: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string', default: '50' },
    });
    const problems = new Problems();
    const role = oneOf('role', values.role, ROLES, problems);
    const status = oneOf('status', values.status, STATUSES, problems);
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      problems.add(`--limit must be an integer from 1 to 100 (got "${values.limit}")`);
    problems.throwIfAny();
    await withPlatform(async (platform) => {
      const page = await createModules(platform).admin.users.listUsers({
        page: 1,
        limit,
        search: values.search,
        role,
        status,
      });
      for (const user of page.users)
        print([user.id, user.email, user.role, user.status, user.subscriptionTier, iso(user.createdAt)].join('\t'));
      print(`${page.users.length} of ${page.total} user(s)`);
    });
  },
};

function roleCommand(role: 'admin' | 'user'): Command {
  const verb = role === 'admin' ? 'promote' : 'demote';
  return {
    usage: `users:${verb} --email <email>`,
    summary:
      role === 'admin'
        ? 'Make an account an admin.'
        : 'Take the admin role from an account (never from the last active admin).',
    async run(args) {
      const values = parseOptions(args, { email: { type: 'string' } });
      const problems = new Problems();
      const email = requireEmail(values.email, problems);
      problems.throwIfAny();
      await withPlatform(async (platform) => {
        const { admin } = createModules(platform);
        const user = await admin.users.getUserByEmail(email);
        if (user.role === role) return print(`${email} is already ${role === 'admin' ? 'an admin' : 'not an admin'}`);
        // The last active admin is kept by the service, under a lock (decision 011).
        await admin.users.updateUser(user.id, { role }, OPERATOR);
        print(`${email} is now ${role === 'admin' ? 'an admin' : 'a user'}`);
      });
    },
  };
}

const resetPassword: Command = {
  usage: 'users:reset-password --email <email> [--password <password>]',
  summary: 'Set a new password (generated and shown once when none is given) and sign the account out everywhere.',
  async run(args) {
    const values = parseOptions(args, { email: { type: 'string' }, password: { type: 'string' } });
    const problems = new Problems();
    const email = requireEmail(values.email, problems);
    checkPassword(values.password, problems, false);
    problems.throwIfAny();
    const password = values.password ?? generatePassword();
    await withPlatform(async (platform) => {
      const { sessionsRevoked } = await createModules(platform).admin.userActions.setPassword(
        OPERATOR,
        email,
        password,
      );
      print(`password of ${email} reset; ${sessionsRevoked} session(s) signed out`);
      if (!values.password) print(`new password: ${password}`);
    });
  },
};

const resetTwoFactor: Command = {
  usage: 'users:reset-2fa --email <email>',
  summary:
    "Turn an account's two-factor authentication off (a lost authenticator and recovery codes) and sign it out " +
    'everywhere; the user enrolls again.',
  async run(args) {
    const values = parseOptions(args, { email: { type: 'string' } });
    const problems = new Problems();
    const email = requireEmail(values.email, problems);
    problems.throwIfAny();
    await withPlatform(async (platform) => {
      const { admin } = createModules(platform);
      const user = await admin.users.getUserByEmail(email);
      if (!user.twoFactorEnabled) return print(`${email} has no two-factor authentication to reset`);
      await admin.users.updateUser(user.id, { twoFactorEnabled: false }, OPERATOR);
      print(`two-factor authentication of ${email} reset; every session signed out`);
    });
  },
};

const owner: Command = {
  usage: 'users:owner --email <email> [--remove]',
  summary:
    "Name an account the platform owner's (other admins cannot demote, suspend, delete or reset it), or with " +
    '--remove no longer.',
  async run(args) {
    const values = parseOptions(args, { email: { type: 'string' }, remove: { type: 'boolean', default: false } });
    const problems = new Problems();
    const email = requireEmail(values.email, problems);
    problems.throwIfAny();
    const wanted = !values.remove;
    await withPlatform(async (platform) => {
      const { admin } = createModules(platform);
      const user = await admin.users.getUserByEmail(email);
      if ((await admin.users.isOwner(user.id)) === wanted)
        return print(`${email} is ${wanted ? 'already' : 'not'} the owner's account`);
      await admin.users.updateUser(user.id, { owner: wanted }, OPERATOR);
      print(wanted ? `${email} is now the owner's account` : `${email} is no longer the owner's account`);
    });
  },
};

export const USER_COMMANDS: Record<string, Command> = {
  'users:create': create,
  'users:list': list,
  'users:promote': roleCommand('admin'),
  'users:demote': roleCommand('user'),
  'users:reset-password': resetPassword,
  'users:reset-2fa': resetTwoFactor,
  'users:owner': owner,
};

import { Type, type Static } from 'typebox';
import { StringEnum } from '../../platform/http/schemas.ts';

export const ConsoleAccess = Type.Object({
  access_token: Type.String({
    description: 'JWT for the Authorization: Bearer header; the console keeps it in memory only.',
  }),
  token_type: Type.Literal('bearer', { description: 'Always `bearer`.' }),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
});
export type ConsoleAccess = Static<typeof ConsoleAccess>;

const ConsoleMfaRequired = Type.Object({
  mfa_required: Type.Literal(true, { description: 'The password was right; a second factor is needed.' }),
  mfa_token: Type.String({ description: 'For POST /api/console/session/2fa: single use, valid 5 minutes.' }),
  methods: Type.Array(Type.String({ description: 'A second factor accepted.' }), {
    description: '`totp` and `recovery_code`.',
  }),
});

export const ConsoleLoginAnswer = Type.Union([ConsoleAccess, ConsoleMfaRequired], {
  description:
    'An access token (the refresh token is set as a cookie); or, with two-factor on, the challenge to answer ' +
    'at POST /api/console/session/2fa.',
});

export const ConsoleSignedOut = Type.Object({
  success: Type.Boolean({ description: 'Always true: the cookie is cleared.' }),
});

export const CsrfHeaders = Type.Object({
  'x-console-request': Type.Literal('1', {
    description:
      'Always `1`: the console sends it; a page elsewhere cannot without a CORS preflight, which ' +
      'this service never grants (CSRF).',
  }),
});

/** The path of a job's "run now": `names` are every job's, as the jobs module lists them. */
export const jobParams = (names: readonly string[]) =>
  Type.Object({ job_name: StringEnum(names, { description: 'A scheduled job.' }) });

export const JobStarted = Type.Object({
  run_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The run started, or the one that covered this trigger.',
  }),
  status: Type.String({ description: '`running`, `succeeded`, `partial`, `failed` or `skipped`.' }),
});

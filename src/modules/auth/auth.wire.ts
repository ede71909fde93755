// The auth module's answers on the wire: its services return accounts, token rows and issued tokens,
// and the routes answer them through these mappers, each typed by its response schema. The account is
// mapped by the users module, which owns it (`accountWire`).
import { iso } from '../../platform/http/schemas.ts';
import type { ApiTokenRow } from '../users/index.ts';
import type {
  ApiToken,
  ApiTokenCreated,
  MfaRequired,
  RecoveryCodes,
  TokenPair,
  TwoFactorSetup,
} from './auth.schemas.ts';
import type { SignIn } from './auth.service.ts';
import type { IssuedTokens } from './session-issuer.ts';
import type { TwoFactorEnrolment } from './two-factor.service.ts';

export function tokenPairWire(tokens: IssuedTokens): TokenPair {
  return {
    access_token: tokens.accessToken,
    token_type: 'bearer',
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
  };
}

/** A right password on an account with two-factor on: the token to verify the second factor with. */
export function mfaRequiredWire(signIn: Extract<SignIn, { mfaToken: string }>): MfaRequired {
  return { mfa_required: true, mfa_token: signIn.mfaToken, methods: signIn.methods };
}

/** The token pair, or what the second factor is verified with. */
export function signInWire(signIn: SignIn): TokenPair | MfaRequired {
  return 'mfaToken' in signIn ? mfaRequiredWire(signIn) : tokenPairWire(signIn);
}

function apiTokenFields(row: ApiTokenRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as ApiToken['scopes'],
    expires_at: iso(row.expiresAt)!,
    created_at: iso(row.createdAt)!,
  };
}

export function apiTokenWire(row: ApiTokenRow): ApiToken {
  return { ...apiTokenFields(row), last_used_at: iso(row.lastUsedAt) };
}

export function apiTokenCreatedWire(created: { row: ApiTokenRow; token: string }): ApiTokenCreated {
  return { ...apiTokenFields(created.row), token: created.token };
}

export function twoFactorSetupWire(enrolment: TwoFactorEnrolment): TwoFactorSetup {
  return { secret: enrolment.secret, otpauth_url: enrolment.otpauthUrl, qr_svg: enrolment.qrSvg };
}

export function recoveryCodesWire(codes: string[]): RecoveryCodes {
  return { recovery_codes: codes };
}

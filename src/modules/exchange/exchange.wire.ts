// The exchange module's answers on the wire, for the resources whose services return domain values
// (credentials and key validation): the routes answer through these mappers, each typed by its
// response schema.
import { iso } from '../../platform/http/schemas.ts';
import type {
  Credential,
  CredentialDetail,
  CredentialList,
  DeleteResult,
  ValidationResult,
} from './credentials.schemas.ts';
import type { CredentialRow } from './credentials.repository.ts';
import type { KeyValidation } from './validation.service.ts';

/** A credential as the API shows it: never its key, secret or passphrase. */
export function credentialWire(row: CredentialRow): Credential {
  return {
    id: row.id,
    user_id: row.userId,
    exchange_name: row.exchangeName,
    credential_name: row.credentialName,
    permissions: row.permissions,
    ip_whitelist: row.ipWhitelist,
    exchange_metadata: row.exchangeMetadata,
    is_active: row.isActive,
    last_used: iso(row.lastUsed),
    last_validation: iso(row.lastValidation),
    validation_status: row.validationStatus,
    validation_error: row.validationError,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

/** A credential with its masked key and whether a passphrase is stored. */
export function credentialDetailWire(row: CredentialRow): CredentialDetail {
  return {
    ...credentialWire(row),
    api_key_masked: row.apiKeyMasked,
    has_passphrase: row.apiPassphraseSealed !== null,
  };
}

export function credentialListWire(rows: CredentialRow[]): CredentialList {
  return { credentials: rows.map(credentialWire), total_count: rows.length };
}

export function credentialDeletedWire(id: string): DeleteResult {
  return { success: true, message: 'Credential deleted', deleted_id: id };
}

export function validationWire(validation: KeyValidation): ValidationResult {
  return {
    valid: validation.valid,
    exchange: validation.exchange,
    cause: validation.cause,
    message: validation.message,
    permissions: validation.permissions,
    ip_restricted: validation.ipRestricted,
    currencies_with_balance: validation.currenciesWithBalance,
    warnings: validation.warnings,
    retry_after: validation.retryAfter,
    checked_at: iso(validation.checkedAt)!,
    updated_credential_ids: validation.updatedCredentialIds,
  };
}

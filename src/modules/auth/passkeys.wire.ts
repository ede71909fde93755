// Passkeys on the wire, typed by their response schemas.
import { iso } from '../../platform/http/schemas.ts';
import type { PasskeyRow } from '../users/index.ts';
import type { Passkey } from './passkeys.schemas.ts';

export function passkeyWire(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    name: row.name,
    created_at: iso(row.createdAt)!,
    last_used_at: iso(row.lastUsedAt),
    backed_up: row.backedUp,
    transports: row.transports,
  };
}

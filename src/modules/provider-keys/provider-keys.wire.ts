// The provider keys' answers on the wire: the service returns key rows, test outcomes and due
// rotations, and the routes answer them through these mappers, each typed by its response schema.
import { iso } from '../../platform/http/schemas.ts';
import type { KeyRow } from './provider-keys.repository.ts';
import type { KeyRecord, KeyTestResult, RotationReminder } from './provider-keys.schemas.ts';
import type { KeyTest, RotationDue } from './provider-keys.service.ts';

/** A stored key as the API shows it: its prefix, never the key. */
export function keyRecordWire(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    provider: row.provider,
    key_prefix: row.keyPrefix,
    is_active: row.isActive,
    last_used_at: iso(row.lastUsedAt),
    usage_count: row.usageCount,
    last_rotated_at: iso(row.lastRotatedAt),
    rotation_reminder_days: row.rotationReminderDays,
    next_rotation_date: iso(row.nextRotationDate)!,
    notes: row.notes,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
    created_by: row.createdBy,
    updated_by: row.updatedBy,
  };
}

export function keyTestWire(test: KeyTest): KeyTestResult {
  return {
    provider: test.provider,
    is_valid: test.isValid,
    error_message: test.errorMessage,
    response_time_ms: test.responseTimeMs,
    tested_at: iso(test.testedAt)!,
  };
}

export function rotationReminderWire(due: RotationDue): RotationReminder {
  return {
    id: due.id,
    provider: due.provider,
    key_prefix: due.keyPrefix,
    next_rotation_date: iso(due.nextRotationDate)!,
    days_until_rotation: due.daysUntilRotation,
  };
}

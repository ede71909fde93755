// CSV of admin users (RFC 4180), safe to open in a spreadsheet.
import type { User } from './users.schemas.ts';

const USER_CSV_COLUMNS = [
  'id',
  'email',
  'firstName',
  'lastName',
  'role',
  'subscriptionTier',
  'status',
  'createdAt',
  'lastLogin',
  'emailVerified',
  'twoFactorEnabled',
  'totalTrades',
  'accountBalance',
  'avatar',
] as const satisfies readonly (keyof User)[];

// Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: text that could run as a formula gets a leading quote; quoting per RFC 4180. */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usersToCsv(users: readonly User[]): string {
  const lines = [USER_CSV_COLUMNS.join(',')];
  for (const user of users) lines.push(USER_CSV_COLUMNS.map((column) => csvCell(user[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

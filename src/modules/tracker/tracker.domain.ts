// Pure rules of the tracker shared by both backends: priorities, state lookup, issue references.
import { createHash } from 'node:crypto';
import { STATE_TYPES } from './adapters/tracker-backend.ts';

/**
 * The id of the issue a create with this idempotency key makes (decision 1010): the same actor and key give
 * the same id, shaped as the version-4 UUID Linear's `IssueCreateInput.id` takes, so a retry sends the same id.
 */
export function keyedIssueId(actorId: string, idempotencyKey: string): string {
  const hex = createHash('sha256').update(`tracker-issue\n${actorId}\n${idempotencyKey}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What identifies a create's request, for its idempotency key (decision 1120): a digest of its fields, their
 * order and a label list's order aside, so the same create sent again matches and another does not.
 */
export function createFingerprint(body: Record<string, unknown>): string {
  const canonical = Object.keys(body)
    .filter((key) => body[key] !== undefined)
    .sort()
    .map((key) => {
      const value = body[key];
      return [key, Array.isArray(value) ? [...value].map(String).sort() : value];
    });
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** Linear's priority scale; the spec calls 3 "medium". */
const PRIORITY_LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'] as const;

export function priorityLabel(priority: number): string {
  return PRIORITY_LABELS[priority] ?? PRIORITY_LABELS[0];
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,9}-\d{1,9}$/;

export const isIdentifier = (value: string): boolean => IDENTIFIER.test(value);

/** The states of a new team, in board order; the first of each type is what the type resolves to. */
export const DEFAULT_STATES = [
  { name: 'Backlog', type: 'backlog', color: '#bec2c8' },
  { name: 'Todo', type: 'unstarted', color: '#e2e2e2' },
  { name: 'In Progress', type: 'started', color: '#f2c94c' },
  { name: 'Done', type: 'completed', color: '#5e6ad2' },
  { name: 'Canceled', type: 'canceled', color: '#95a2b3' },
] as const;

interface StateRef {
  id: string;
  name: string;
  type: string;
  position: number;
}

/** A state by name (case-insensitive) first, else the first state of that type; undefined when neither. */
export function resolveState<T extends StateRef>(states: readonly T[], wanted: string): T | undefined {
  const needle = wanted.trim().toLowerCase();
  const byName = states.find((s) => s.name.toLowerCase() === needle);
  if (byName) return byName;
  return [...states].sort((a, b) => a.position - b.position).find((s) => s.type === needle);
}

export function unknownStateMessage(wanted: string, teamKey: string, states: readonly StateRef[]): string {
  const names = states.map((s) => s.name).join(', ');
  return (
    `Unknown state '${wanted}' for team ${teamKey}; use one of its states (${names}) or a state ` +
    `type (${STATE_TYPES.join(', ')})`
  );
}

/** `states=Todo,started` → names and types; a word that is a state type counts as a type. */
export function parseStatesFilter(csv: string | undefined): { stateTypes: string[]; stateNames: string[] } {
  const stateTypes: string[] = [];
  const stateNames: string[] = [];
  for (const raw of (csv ?? '').split(',')) {
    const token = raw.trim();
    if (!token) continue;
    const lower = token.toLowerCase();
    if ((STATE_TYPES as readonly string[]).includes(lower)) {
      if (!stateTypes.includes(lower)) stateTypes.push(lower);
    } else if (!stateNames.some((n) => n.toLowerCase() === lower)) {
      stateNames.push(token);
    }
  }
  return { stateTypes, stateNames };
}

/** Label names without blanks or case-insensitive repeats, in first-seen order. */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    result.push(name);
  }
  return result;
}

/** Labels the local tracker keeps at most: agent filing creates missing ones, so their number is bounded. */
export const MAX_LOCAL_LABELS = 1_000;

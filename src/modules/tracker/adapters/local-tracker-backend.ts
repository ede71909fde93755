// The embedded tracker: teams, workflow states, labels and issues in our own database, answering in
// the same shape as Linear so that switching backends changes no client.
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.ts';
import type { Database, DbExecutor } from '../../../platform/db/database.ts';
import { invalidField } from '../../../platform/http/errors.ts';
import { isUuid } from '../../../platform/ids.ts';
import { DEFAULT_STATES, MAX_LOCAL_LABELS, resolveState, unknownStateMessage } from '../tracker.domain.ts';
import { createTrackerRepository, issueColumns, type StateRow, type TeamRow } from '../tracker.repository.ts';
import type { IssueCreate, IssueEffects, IssueFields, TrackerBackend, TrackerIssue } from './tracker-backend.ts';
import { parseUserId, type UsersModule } from '../../users/index.ts';

/** The team seeded at start when TRACKER_DEFAULT_TEAM_ID is unset (docs/decisions/050). */
export const LOCAL_DEFAULT_TEAM = {
  id: '00000000-0000-4000-8000-000000000001',
  key: 'ENG',
  name: 'Engineering',
} as const;

interface LocalTrackerBackend extends TrackerBackend {
  /** Creates the default team and its workflow states if absent; safe to run on every start. */
  seed(): Promise<void>;
  readonly defaultTeamId: string;
}

export function createLocalTrackerBackend(deps: {
  database: Pick<Database, 'db' | 'ping'>;
  /** Assignees are accounts of the identity module. */
  users: Pick<UsersModule['accounts'], 'findById' | 'names'>;
  clock: Clock;
  logger: Logger;
  defaultTeamId: string | undefined;
}): LocalTrackerBackend {
  const { db } = deps.database;
  const repo = createTrackerRepository(db);
  const { clock } = deps;
  const defaultTeamId = deps.defaultTeamId ?? LOCAL_DEFAULT_TEAM.id;

  async function isUser(id: string, tx: DbExecutor): Promise<boolean> {
    const userId = parseUserId(id);
    return userId !== undefined && (await deps.users.findById(userId, tx)) !== undefined;
  }

  /**
   * The issues with their assignees' names. An account without a name shows as `User <id prefix>`:
   * an e-mail address is never shown to whoever reads the tracker.
   */
  async function named<T extends TrackerIssue | undefined>(issues: T[], executor: DbExecutor): Promise<T[]> {
    const ids = [...new Set(issues.flatMap((issue) => (issue?.assignee ? [issue.assignee.id] : [])))];
    const names = await deps.users.names(ids, executor);
    for (const issue of issues) {
      const person = issue?.assignee ? names.get(issue.assignee.id) : undefined;
      if (issue?.assignee && person)
        issue.assignee.name =
          `${person.firstName} ${person.lastName}`.trim() || `User ${issue.assignee.id.slice(0, 8)}`;
    }
    return issues;
  }

  async function requireTeam(teamId: string, tx: DbExecutor): Promise<TeamRow> {
    const team = await repo.findTeam(teamId, tx);
    if (!team) throw invalidField(['body', 'teamId'], `Unknown team '${teamId}'`, teamId);
    return team;
  }

  async function requireState(team: TeamRow, wanted: string, tx: DbExecutor): Promise<StateRow> {
    const states = await repo.listStates(team.id, tx);
    const state = resolveState(states, wanted);
    if (!state) throw invalidField(['body', 'state'], unknownStateMessage(wanted, team.key, states), wanted);
    return state;
  }

  /** Checks the references of the given fields; answers the parent's id when one is set. */
  async function checkReferences(
    tx: DbExecutor,
    fields: IssueFields,
    selfId?: string,
  ): Promise<string | null | undefined> {
    if (fields.assigneeId && !(await isUser(fields.assigneeId, tx))) {
      throw invalidField(['body', 'assigneeId'], `Unknown user '${fields.assigneeId}'`, fields.assigneeId);
    }
    if (fields.labelIds && fields.labelIds.length > 0) {
      const known = await repo.existingLabelIds(fields.labelIds, tx);
      const index = fields.labelIds.findIndex((id) => !known.has(id));
      if (index >= 0)
        throw invalidField(
          ['body', 'labelIds', index],
          `Unknown label '${fields.labelIds[index]}'`,
          fields.labelIds[index],
        );
    }
    if (!fields.parentId) return fields.parentId;
    const parent = await repo.findIssueRef(fields.parentId, tx);
    if (!parent) throw invalidField(['body', 'parentId'], `Unknown issue '${fields.parentId}'`, fields.parentId);
    if (parent.id === selfId)
      throw invalidField(['body', 'parentId'], 'An issue cannot be its own parent', fields.parentId);
    // Linear refuses a loop of sub-issues; so do we, at any depth (decision 951).
    if (selfId && (await repo.isSelfOrAncestor(parent.id, selfId, tx)))
      throw invalidField(
        ['body', 'parentId'],
        `Issue '${fields.parentId}' is a sub-issue of this issue; that would make a loop`,
        fields.parentId,
      );
    return parent.id;
  }

  return {
    name: 'local',
    defaultTeamId,

    async seed() {
      const now = clock.now();
      const team =
        defaultTeamId === LOCAL_DEFAULT_TEAM.id ? LOCAL_DEFAULT_TEAM : { ...LOCAL_DEFAULT_TEAM, id: defaultTeamId };
      await db.transaction(async (tx) => {
        await repo.insertTeam(team, now, tx);
        if (await repo.findTeam(team.id, tx)) await repo.insertStates(team.id, DEFAULT_STATES, now, tx);
      });
      if (!(await repo.findTeam(team.id))) {
        deps.logger.warn(
          { teamId: team.id, key: team.key },
          'tracker: the default team could not be created; its key is taken by another team',
        );
      }
    },

    async createIssue(input: IssueCreate, effects?: IssueEffects): Promise<TrackerIssue> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const team = await requireTeam(input.teamId, tx);
        const state = await requireState(team, input.state ?? 'backlog', tx);
        const parentId = await checkReferences(tx, input);
        const { number, key } = await repo.nextNumber(team.id, tx);
        const issueId = await repo.insertIssue(
          {
            ...issueColumns(input),
            ...(input.id ? { id: input.id } : {}),
            teamId: team.id,
            number,
            identifier: `${key}-${number}`,
            title: input.title,
            stateId: state.id,
            parentId: parentId ?? null,
            agentId: input.agentId ?? null,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        if (input.labelIds) await repo.replaceLabels(issueId, input.labelIds, tx);
        const [issue] = await named([(await repo.loadIssue(issueId, tx))!], tx);
        await effects?.(tx, issue!);
        return issue!;
      });
    },

    async getIssue(ref) {
      const found = await repo.findIssueRef(ref);
      return found ? ((await named([await repo.loadIssue(found.id)], db))[0] ?? null) : null;
    },

    async updateIssue(ref, patch, effects) {
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (patch.parentId) await repo.lockIssueTree(tx);
        const found = await repo.findIssueRef(ref, tx);
        if (!found) return null;
        const set = { ...issueColumns(patch), updatedAt: now };
        if (patch.state !== undefined) {
          const team = (await repo.findTeam(found.teamId, tx))!;
          set.stateId = (await requireState(team, patch.state, tx)).id;
        }
        const parentId = await checkReferences(tx, patch, found.id);
        if (parentId !== undefined) set.parentId = parentId;
        await repo.updateIssue(found.id, set, tx);
        if (patch.labelIds) await repo.replaceLabels(found.id, patch.labelIds, tx);
        const [issue] = await named([(await repo.loadIssue(found.id, tx))!], tx);
        await effects?.(tx, issue!);
        return issue!;
      });
    },

    async listIssues(query) {
      const { issues, hasMore } = await repo.listIssues(query);
      return { issues: await named(issues, db), hasMore };
    },

    async ensureLabels(_teamId, names) {
      if (names.length === 0) return [];
      // Concurrent callers may race to create one name: insert ignoring conflicts, then read back.
      const existing = await repo.labelsByName(names);
      const missing = names.filter((n) => !existing.some((l) => l.name.toLowerCase() === n.toLowerCase()));
      if (missing.length > 0 && (await repo.countLabels()) + missing.length > MAX_LOCAL_LABELS) {
        throw invalidField(
          ['body', 'label_names'],
          `The tracker holds ${MAX_LOCAL_LABELS} labels, the most it keeps; file with existing labels`,
          missing,
        );
      }
      await repo.insertLabels(missing, clock.now());
      const labels = missing.length > 0 ? await repo.labelsByName(names) : existing;
      return names.map((n) => labels.find((l) => l.name.toLowerCase() === n.toLowerCase())!.id);
    },

    async findOpenAgentIssue(teamId, agentId, title) {
      if (!isUuid(teamId)) return null;
      const id = await repo.findOpenAgentIssueId(teamId, agentId, title);
      return id ? ((await repo.loadIssue(id)) ?? null) : null;
    },

    async health() {
      try {
        const latency = await deps.database.ping();
        return {
          reachable: true,
          latencyMs: Math.round(latency * 100) / 100,
          detail: 'Issues are stored in the service database',
        };
      } catch {
        return { reachable: false, latencyMs: null, detail: 'The service database did not answer' };
      }
    },
  };
}

// The Linear adapter: issues live in Linear; state names resolve to stateIds through the team's
// workflow states, label names to ids (created when missing). Agent-filed issues carry a label
// `agent-id:<id>` so the agent's open issues can be found again (decision 051).
import type { Cache } from '../../../platform/cache/cache.ts';
import type { DbExecutor } from '../../../platform/db/database.ts';
import { AppError, invalidField } from '../../../platform/http/errors.ts';
import {
  CLOSED_STATE_TYPES,
  type IssueFields,
  type IssueQuery,
  type TrackerBackend,
  type TrackerIssue,
} from './tracker-backend.ts';
import { LinearInputError, type LinearClient } from './linear-client.ts';
import { priorityLabel, resolveState, unknownStateMessage } from '../tracker.domain.ts';

const AGENT_ID_LABEL_PREFIX = 'agent-id:';

const ISSUE_FIELDS = `id identifier title description priority estimate dueDate url createdAt updatedAt
  state { id name type } team { id key name } assignee { id name } labels { nodes { id name } }
  project { id } parent { id }`;

interface LinearIssue {
  id: string;
  identifier: string;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  url: string;
  createdAt: string;
  updatedAt: string;
  state: { id: string; name: string; type: string };
  team: { id: string; key: string; name: string };
  assignee: { id: string; name: string } | null;
  labels: { nodes: { id: string; name: string }[] };
  project: { id: string } | null;
  parent: { id: string } | null;
}

interface LinearState {
  id: string;
  name: string;
  type: string;
  position: number;
  team: { id: string; key: string; name: string };
}

/**
 * Issues asked of Linear per request (decision 1011). Linear refuses a query over 10 000 complexity points
 * (1 per object, 0.1 per property, a connection's nodes once per item asked, 50 by default): an issue with
 * ISSUE_FIELDS, its 50 labels among them, is some 68 points, so 250 at once (17 000) would be refused and
 * 100 (6 800) is not. A list of up to 250 is read in pages of this size.
 */
export const ISSUE_PAGE = 100;

/** Workflow states change rarely; caching them saves a request (and rate-limit budget) per write. */
const STATES_TTL_MS = 5 * 60 * 1000;

export function createLinearTrackerBackend(deps: {
  client: LinearClient;
  cache: Pick<Cache, 'wrap'>;
  db: DbExecutor;
}): TrackerBackend {
  const { client, cache, db } = deps;

  const teamStates = (teamId: string) =>
    cache.wrap(`tracker:linear:states:${teamId}`, STATES_TTL_MS, async () => {
      const data = await client.request<{ workflowStates: { nodes: LinearState[] } }>(
        `query TeamStates($teamId: ID!) {
          workflowStates(first: 250, filter: { team: { id: { eq: $teamId } } }) {
            nodes { id name type position team { id key name } }
          }
        }`,
        { teamId },
      );
      return data.workflowStates.nodes;
    });

  async function stateIdFor(teamId: string, wanted: string, loc: (string | number)[]): Promise<string> {
    const states = await teamStates(teamId);
    if (states.length === 0) throw invalidField(['body', 'teamId'], `Unknown team '${teamId}'`, teamId);
    const state = resolveState(states, wanted);
    if (!state) throw invalidField(loc, unknownStateMessage(wanted, states[0]!.team.key, states), wanted);
    return state.id;
  }

  async function findLabels(names: readonly string[], signal?: AbortSignal) {
    const data = await client.request<{
      issueLabels: { nodes: { id: string; name: string; team: { id: string } | null }[] };
    }>(
      'query LabelsByName($filter: IssueLabelFilter) { issueLabels(first: 250, filter: $filter) { ' +
        'nodes { id name team { id } } } }',
      { filter: { or: names.map((name) => ({ name: { eqIgnoreCase: name } })) } },
      signal,
    );
    return data.issueLabels.nodes;
  }

  async function ensureLabels(teamId: string, names: string[], signal?: AbortSignal): Promise<string[]> {
    if (names.length === 0) return [];
    const usable = (labels: Awaited<ReturnType<typeof findLabels>>, name: string) =>
      labels.find((l) => l.name.toLowerCase() === name.toLowerCase() && (l.team === null || l.team.id === teamId));
    let labels = await findLabels(names, signal);
    for (const name of names.filter((n) => !usable(labels, n))) {
      try {
        const created = await client.request<{
          issueLabelCreate: { success: boolean; issueLabel: { id: string; name: string } };
        }>(
          'mutation CreateLabel($input: IssueLabelCreateInput!) { issueLabelCreate(input: $input) { ' +
            'success issueLabel { id name } } }',
          { input: { name, teamId } },
          signal,
        );
        labels = [...labels, { ...created.issueLabelCreate.issueLabel, team: { id: teamId } }];
      } catch (error) {
        // Someone else created it in the meantime: read it back.
        if (!(error instanceof LinearInputError)) throw error;
        labels = await findLabels(names, signal);
        if (!usable(labels, name))
          throw invalidField(['body', 'label_names'], `The tracker refused label '${name}': ${error.message}`, name);
      }
    }
    return names.map((n) => usable(labels, n)!.id);
  }

  /**
   * Linear input in Linear's names: only the fields given, `null` clearing. Named one by one, so that
   * nothing but these fields ever reaches Linear with the server's key, whatever the caller passed.
   */
  function linearInput(fields: IssueFields & { teamId?: string }): Record<string, unknown> {
    const { teamId, title, description, priority, assigneeId, projectId, parentId, labelIds, estimate, dueDate } =
      fields;
    const input = {
      teamId,
      title,
      description,
      priority,
      assigneeId,
      projectId,
      parentId,
      labelIds,
      estimate,
      dueDate,
    };
    return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  }

  const refused = (error: unknown): never => {
    if (error instanceof LinearInputError)
      throw invalidField(['body'], `The issue tracker refused the issue: ${error.message}`, null);
    throw error;
  };

  async function issueById(ref: string, signal?: AbortSignal): Promise<LinearIssue | null> {
    try {
      const data = await client.request<{ issue: LinearIssue | null }>(
        `query Issue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} } }`,
        { id: ref },
        signal,
      );
      return data.issue;
    } catch (error) {
      if (error instanceof LinearInputError && error.notFound) return null;
      throw error;
    }
  }

  async function getIssue(ref: string): Promise<TrackerIssue | null> {
    const issue = await issueById(ref);
    return issue ? toIssue(issue) : null;
  }

  return {
    name: 'linear',

    async createIssue(input, effects, signal) {
      const stateId = await stateIdFor(input.teamId, input.state ?? 'backlog', ['body', 'state']);
      const labelIds = [...(input.labelIds ?? [])];
      if (input.agentId)
        labelIds.push(...(await ensureLabels(input.teamId, [`${AGENT_ID_LABEL_PREFIX}${input.agentId}`], signal)));
      let created: LinearIssue | null;
      try {
        const data = await client.request<{ issueCreate: { success: boolean; issue: LinearIssue | null } }>(
          'mutation CreateIssue($input: IssueCreateInput!) { issueCreate(input: $input) { ' +
            `success issue { ${ISSUE_FIELDS} } } }`,
          {
            input: {
              ...(input.id ? { id: input.id } : {}),
              ...linearInput(input),
              stateId,
              labelIds: labelIds.length > 0 ? labelIds : undefined,
            },
          },
          signal,
        );
        created = data.issueCreate.success ? data.issueCreate.issue : null;
      } catch (error) {
        // A create with our id refused: if an issue has that id, an earlier send of this create made it.
        const earlier = error instanceof LinearInputError && input.id ? await issueById(input.id, signal) : null;
        if (!earlier) return refused(error);
        created = earlier;
      }
      if (!created) throw new AppError('upstream_error', 'The issue tracker did not create the issue');
      const issue = toIssue(created);
      await effects?.(db, issue);
      return issue;
    },

    getIssue,

    async updateIssue(ref, patch, effects) {
      const input = linearInput(patch);
      if (patch.state !== undefined || patch.labelIds !== undefined) {
        const current = await getIssue(ref);
        if (!current) return null;
        if (patch.state !== undefined)
          input.stateId = await stateIdFor(current.team.id, patch.state, ['body', 'state']);
        // Linear replaces the issue's labels with the ones sent; its agent-id label is how the agent's open
        // issue is found again (decisions 051, 987), not the caller's to drop: it is sent along.
        if (patch.labelIds !== undefined) {
          const agentLabels = current.labels
            .filter((l) => l.name.toLowerCase().startsWith(AGENT_ID_LABEL_PREFIX) && !patch.labelIds!.includes(l.id))
            .map((l) => l.id);
          input.labelIds = [...patch.labelIds, ...agentLabels];
        }
      }
      let updated: LinearIssue | null;
      try {
        const data = await client.request<{ issueUpdate: { success: boolean; issue: LinearIssue | null } }>(
          'mutation UpdateIssue($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) ' +
            `{ success issue { ${ISSUE_FIELDS} } } }`,
          { id: ref, input },
        );
        updated = data.issueUpdate.success ? data.issueUpdate.issue : null;
      } catch (error) {
        if (error instanceof LinearInputError && error.notFound) return null;
        return refused(error);
      }
      if (!updated) throw new AppError('upstream_error', 'The issue tracker did not update the issue');
      const issue = toIssue(updated);
      await effects?.(db, issue);
      return issue;
    },

    async listIssues(query) {
      // Pages of ISSUE_PAGE (decision 1011): a page of 250 with its labels would be over Linear's complexity.
      const issues: TrackerIssue[] = [];
      let after: string | undefined;
      for (;;) {
        const data = await client.request<{
          issues: { nodes: LinearIssue[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
        }>(
          `query Issues($first: Int!, $after: String, $filter: IssueFilter) {
            issues(first: $first, after: $after, filter: $filter, orderBy: updatedAt) {
              nodes { ${ISSUE_FIELDS} } pageInfo { hasNextPage endCursor }
            }
          }`,
          { first: Math.min(ISSUE_PAGE, query.limit - issues.length), after, filter: issueFilter(query) },
        );
        issues.push(...data.issues.nodes.map(toIssue));
        const { hasNextPage, endCursor } = data.issues.pageInfo;
        if (!hasNextPage || !endCursor || data.issues.nodes.length === 0) return { issues, hasMore: false };
        if (issues.length >= query.limit) return { issues, hasMore: true };
        after = endCursor;
      }
    },

    ensureLabels,

    async findOpenAgentIssue(teamId, agentId, title, signal) {
      const data = await client.request<{ issues: { nodes: LinearIssue[] } }>(
        'query OpenAgentIssues($filter: IssueFilter) { issues(first: 50, filter: $filter) ' +
          `{ nodes { ${ISSUE_FIELDS} } } }`,
        {
          filter: {
            team: { id: { eq: teamId } },
            title: { eq: title },
            state: { type: { nin: CLOSED_STATE_TYPES } },
            labels: { some: { name: { eq: `${AGENT_ID_LABEL_PREFIX}${agentId}` } } },
          },
        },
        signal,
      );
      const match = data.issues.nodes.find(
        (issue) => issue.title === title && !CLOSED_STATE_TYPES.includes(issue.state.type as never),
      );
      return match ? toIssue(match) : null;
    },

    async health() {
      const started = performance.now();
      try {
        // Health is public: it says whether the key works, never whose it is (decision 746).
        await client.request<{ viewer: { id: string } }>(`query Viewer { viewer { id } }`);
        const latencyMs = Math.round((performance.now() - started) * 100) / 100;
        return { reachable: true, latencyMs, detail: 'Linear accepted the key' };
      } catch (error) {
        const detail =
          error instanceof AppError && typeof error.detail === 'string' ? error.detail : 'The issue tracker failed';
        return { reachable: false, latencyMs: null, detail };
      }
    },
  };
}

function issueFilter(query: IssueQuery): Record<string, unknown> | undefined {
  const filter: Record<string, unknown> = {};
  // Linear's `in` compares names case-sensitively; eqIgnoreCase per name matches the local backend.
  const states = [
    ...(query.stateTypes.length > 0 ? [{ type: { in: query.stateTypes } }] : []),
    ...query.stateNames.map((name) => ({ name: { eqIgnoreCase: name } })),
  ];
  if (states.length === 1) filter.state = states[0];
  else if (states.length > 1) filter.state = { or: states };
  if (query.assigneeId !== undefined) filter.assignee = { id: { eq: query.assigneeId } };
  if (query.label !== undefined) filter.labels = { some: { name: { eqIgnoreCase: query.label } } };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

function toIssue(issue: LinearIssue): TrackerIssue {
  const agentLabel = issue.labels.nodes.find((l) => l.name.startsWith(AGENT_ID_LABEL_PREFIX));
  return {
    id: issue.id,
    identifier: issue.identifier,
    title: issue.title,
    description: issue.description,
    priority: issue.priority,
    priorityLabel: priorityLabel(issue.priority),
    state: { id: issue.state.id, name: issue.state.name, type: issue.state.type },
    team: issue.team,
    assignee: issue.assignee ? { id: issue.assignee.id, name: issue.assignee.name } : null,
    labels: issue.labels.nodes.map((l) => ({ id: l.id, name: l.name })),
    estimate: issue.estimate,
    dueDate: issue.dueDate,
    projectId: issue.project?.id ?? null,
    parentId: issue.parent?.id ?? null,
    agentId: agentLabel ? agentLabel.name.slice(AGENT_ID_LABEL_PREFIX.length) : null,
    url: issue.url,
    createdAt: new Date(issue.createdAt).toISOString(),
    updatedAt: new Date(issue.updatedAt).toISOString(),
  };
}

/**
 * Row-level reports (DESIGN §11): each is one SQL statement over the stored facts, keyset-ordered
 * by (`sortTime` DESC, `sortId` DESC). The JSON pages and the CSV export run the same statement
 * (the export without LIMIT), so they hold the same rows in the same order.
 */
export type ReportColumnType = 'string' | 'number' | 'timestamp' | 'boolean';

export interface ReportColumn {
  readonly key: string;
  readonly label: string;
  readonly type: ReportColumnType;
  /** SQL expression (timestamps are formatted as ISO 8601 UTC by the query builder). */
  readonly sql: string;
}

export interface ReportSpec {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly columns: readonly ReportColumn[];
  /** `FROM …` with joins; the base alias's `workspace_id` is the scope. */
  readonly from: string;
  readonly alias: string;
  /** Column `from`/`to` apply to (null: the report is a snapshot, the window is ignored). */
  readonly time: string | null;
  readonly sortTime: string;
  readonly sortId: string;
  readonly where?: string;
  /** How the channel / queue filters apply (null: they do not apply to this report). */
  readonly channel: string | null;
  readonly queue: string | null;
  /** The window is a parameter of the columns (agents' figures), not a row filter. */
  readonly windowInColumns?: boolean;
}

const col = (key: string, label: string, type: ReportColumnType, sql: string): ReportColumn => ({
  key,
  label,
  type,
  sql,
});
const secs = (to: string, from: string): string => `round(extract(epoch FROM ${to} - ${from}), 3)::float8`;
const userName = (id: string): string => `(SELECT u.name FROM users u WHERE u.id = ${id})`;
const contactName = (alias: string, id: string): string =>
  `(SELECT ct.name FROM contacts ct WHERE ct.workspace_id = ${alias}.workspace_id AND ct.id = ${id})`;
const queueName = (alias: string, id: string): string =>
  `(SELECT q.name FROM queues q WHERE q.workspace_id = ${alias}.workspace_id AND q.id = ${id})`;
const slaState = (reached: string, due: string): string =>
  `CASE WHEN ${reached} IS NULL THEN CASE WHEN ${due} < now() THEN 'BREACHED' ELSE 'PENDING' END
        WHEN ${reached} <= ${due} THEN 'MET' ELSE 'BREACHED' END`;
/** Via the row's conversation (`conversation_id`). */
const viaConversation = (alias: string, column: 'channel_id' | 'queue_id'): string =>
  `EXISTS (SELECT 1 FROM conversations fc WHERE fc.workspace_id = ${alias}.workspace_id AND fc.id = ${alias}.conversation_id AND fc.${column} = $VALUE)`;

/** `$FROM`/`$TO` in agents' columns are the window's bounds (±infinity when not given). */
const agentConversations = (where: string): string =>
  `(SELECT count(*)::int FROM conversations c WHERE c.workspace_id = ms.workspace_id AND c.assignee_id = ms.user_id
      AND ${where} $CONV_FILTER)`;

export const REPORTS: readonly ReportSpec[] = [
  {
    key: 'conversations',
    name: 'Conversations',
    description: 'One row per conversation created in the window',
    alias: 'c',
    from: 'conversations c',
    time: 'c.created_at',
    sortTime: 'c.created_at',
    sortId: 'c.id',
    channel: 'c.channel_id = $VALUE',
    queue: 'c.queue_id = $VALUE',
    columns: [
      col('id', 'Conversation', 'string', 'c.id::text'),
      col('createdAt', 'Created', 'timestamp', 'c.created_at'),
      col('channelType', 'Channel type', 'string', 'c.channel_type'),
      col('channelId', 'Channel', 'string', 'c.channel_id::text'),
      col('status', 'Status', 'string', 'c.status'),
      col('priority', 'Priority', 'string', 'c.priority'),
      col('queue', 'Queue', 'string', queueName('c', 'c.queue_id')),
      col('assignee', 'Assignee', 'string', userName('c.assignee_id')),
      col('contact', 'Contact', 'string', contactName('c', 'c.contact_id')),
      col('subject', 'Subject', 'string', 'c.subject'),
      col('tags', 'Tags', 'string', `array_to_string(c.tags, ';')`),
      col('firstResponseAt', 'First response', 'timestamp', 'c.first_response_at'),
      col('firstResponseSeconds', 'First response (s)', 'number', secs('c.first_response_at', 'c.created_at')),
      col('resolvedAt', 'Resolved', 'timestamp', 'c.resolved_at'),
      col('resolutionSeconds', 'Resolution (s)', 'number', secs('c.resolved_at', 'c.created_at')),
    ],
  },
  {
    key: 'messages',
    name: 'Messages',
    description: 'One row per message sent or received in the window',
    alias: 'm',
    from: 'messages m',
    time: 'm.created_at',
    sortTime: 'm.created_at',
    sortId: 'm.id',
    channel: 'm.channel_id = $VALUE',
    queue: viaConversation('m', 'queue_id'),
    columns: [
      col('id', 'Message', 'string', 'm.id::text'),
      col('conversationId', 'Conversation', 'string', 'm.conversation_id::text'),
      col('createdAt', 'Created', 'timestamp', 'm.created_at'),
      col('direction', 'Direction', 'string', 'm.direction'),
      col('senderType', 'Sender type', 'string', 'm.sender_type'),
      col('type', 'Type', 'string', 'm.type'),
      col('deliveryStatus', 'Delivery', 'string', 'm.delivery_status'),
      col('text', 'Text', 'string', 'm.text'),
    ],
  },
  {
    key: 'tickets',
    name: 'Tickets',
    description: 'One row per ticket created in the window',
    alias: 't',
    from: 'tickets t',
    time: 't.created_at',
    sortTime: 't.created_at',
    sortId: 't.id',
    channel: viaConversation('t', 'channel_id'),
    queue: 't.queue_id = $VALUE',
    columns: [
      col('id', 'Ticket', 'string', 't.id::text'),
      col('key', 'Key', 'string', 't.key'),
      col('createdAt', 'Created', 'timestamp', 't.created_at'),
      col('subject', 'Subject', 'string', 't.subject'),
      col('status', 'Status', 'string', 't.status'),
      col('priority', 'Priority', 'string', 't.priority'),
      col('source', 'Source', 'string', 't.source'),
      col('queue', 'Queue', 'string', queueName('t', 't.queue_id')),
      col('assignee', 'Assignee', 'string', userName('t.assignee_id')),
      col('contact', 'Contact', 'string', contactName('t', 't.contact_id')),
      col('conversationId', 'Conversation', 'string', 't.conversation_id::text'),
      col('dueAt', 'Due', 'timestamp', 't.due_at'),
      col('resolvedAt', 'Resolved', 'timestamp', 't.resolved_at'),
      col('resolutionSeconds', 'Resolution (s)', 'number', secs('t.resolved_at', 't.created_at')),
    ],
  },
  {
    key: 'agents',
    name: 'Agents',
    description: 'One row per member: presence, online time and conversation figures of the window',
    alias: 'ms',
    from: 'memberships ms JOIN users u ON u.id = ms.user_id',
    time: null,
    windowInColumns: true,
    sortTime: 'ms.created_at',
    sortId: 'ms.id',
    channel: null,
    queue: null,
    columns: [
      col('userId', 'User', 'string', 'ms.user_id::text'),
      col('name', 'Name', 'string', 'u.name'),
      col('email', 'Email', 'string', 'u.email'),
      col('role', 'Role', 'string', 'ms.role'),
      col(
        'presence',
        'Presence now',
        'string',
        `coalesce((SELECT st.presence FROM agent_status st WHERE st.workspace_id = ms.workspace_id AND st.user_id = ms.user_id), 'OFFLINE')`,
      ),
      col(
        'onlineSeconds',
        'Online (s)',
        'number',
        `(SELECT round(coalesce(sum(extract(epoch FROM greatest(least(coalesce(pi.ended_at, now()), $TO) - greatest(pi.started_at, $FROM), interval '0'))), 0), 3)::float8
            FROM presence_intervals pi WHERE pi.workspace_id = ms.workspace_id AND pi.user_id = ms.user_id
             AND pi.status = 'ONLINE' AND pi.started_at < $TO AND (pi.ended_at IS NULL OR pi.ended_at > $FROM))`,
      ),
      col('assigned', 'Assigned', 'number', agentConversations('c.assigned_at >= $FROM AND c.assigned_at < $TO')),
      col('resolved', 'Resolved', 'number', agentConversations('c.resolved_at >= $FROM AND c.resolved_at < $TO')),
      col(
        'averageFirstResponseSeconds',
        'Avg first response (s)',
        'number',
        `(SELECT round(avg(extract(epoch FROM c.first_response_at - c.created_at)), 3)::float8 FROM conversations c
           WHERE c.workspace_id = ms.workspace_id AND c.assignee_id = ms.user_id AND c.first_response_at IS NOT NULL
             AND c.created_at >= $FROM AND c.created_at < $TO $CONV_FILTER)`,
      ),
      col('openNow', 'Open now', 'number', agentConversations(`c.status IN ('OPEN', 'ON_HOLD')`)),
    ],
  },
  {
    key: 'sla',
    name: 'SLA',
    description: 'One row per conversation created in the window with an SLA policy',
    alias: 's',
    from: 'conversation_slas s JOIN conversations c ON c.workspace_id = s.workspace_id AND c.id = s.conversation_id',
    time: 's.conversation_created_at',
    sortTime: 's.conversation_created_at',
    sortId: 's.id',
    channel: 'c.channel_id = $VALUE',
    queue: 'c.queue_id = $VALUE',
    columns: [
      col('conversationId', 'Conversation', 'string', 's.conversation_id::text'),
      col('policy', 'Policy', 'string', 's.policy_name'),
      col('createdAt', 'Created', 'timestamp', 's.conversation_created_at'),
      col('firstResponseDueAt', 'First response due', 'timestamp', 's.first_response_due_at'),
      col('firstResponseAt', 'First response', 'timestamp', 'c.first_response_at'),
      col(
        'firstResponseStatus',
        'First response SLA',
        'string',
        slaState('coalesce(c.first_response_at, c.resolved_at)', 's.first_response_due_at'),
      ),
      col('resolutionDueAt', 'Resolution due', 'timestamp', 's.resolution_due_at'),
      col('resolvedAt', 'Resolved', 'timestamp', 'c.resolved_at'),
      col('resolutionStatus', 'Resolution SLA', 'string', slaState('c.resolved_at', 's.resolution_due_at')),
    ],
  },
  {
    key: 'csat',
    name: 'CSAT',
    description: 'One row per conversation’s latest rating given in the window',
    alias: 'r',
    from: 'csat_responses r JOIN conversations c ON c.workspace_id = r.workspace_id AND c.id = r.conversation_id',
    time: 'r.created_at',
    sortTime: 'r.created_at',
    sortId: 'r.id',
    channel: 'c.channel_id = $VALUE',
    queue: 'c.queue_id = $VALUE',
    columns: [
      col('conversationId', 'Conversation', 'string', 'r.conversation_id::text'),
      col('score', 'Score', 'number', 'r.score::int'),
      col('comment', 'Comment', 'string', 'r.comment'),
      col('respondedAt', 'Rated', 'timestamp', 'r.created_at'),
      col('channelType', 'Channel type', 'string', 'c.channel_type'),
      col('assignee', 'Assignee', 'string', userName('c.assignee_id')),
      col('contact', 'Contact', 'string', contactName('c', 'c.contact_id')),
    ],
  },
  {
    key: 'ai',
    name: 'AI agent',
    description: 'One row per conversation created in the window that the AI answered or handed off',
    alias: 'c',
    from: 'conversations c',
    where: `(EXISTS (SELECT 1 FROM messages a WHERE a.workspace_id = c.workspace_id AND a.conversation_id = c.id AND a.sender_type = 'AI')
             OR EXISTS (SELECT 1 FROM ai_conversation_states s WHERE s.workspace_id = c.workspace_id AND s.conversation_id = c.id))`,
    time: 'c.created_at',
    sortTime: 'c.created_at',
    sortId: 'c.id',
    channel: 'c.channel_id = $VALUE',
    queue: 'c.queue_id = $VALUE',
    columns: [
      col('conversationId', 'Conversation', 'string', 'c.id::text'),
      col('createdAt', 'Created', 'timestamp', 'c.created_at'),
      col('channelType', 'Channel type', 'string', 'c.channel_type'),
      col('status', 'Status', 'string', 'c.status'),
      col(
        'aiReplies',
        'AI replies',
        'number',
        `(SELECT count(*)::int FROM messages a WHERE a.workspace_id = c.workspace_id AND a.conversation_id = c.id AND a.sender_type = 'AI')`,
      ),
      col(
        'agentMessages',
        'Agent messages',
        'number',
        `(SELECT count(*)::int FROM messages h WHERE h.workspace_id = c.workspace_id AND h.conversation_id = c.id AND h.sender_type = 'AGENT')`,
      ),
      col(
        'handedOffAt',
        'Handed off',
        'timestamp',
        `(SELECT s.handed_off_at FROM ai_conversation_states s WHERE s.workspace_id = c.workspace_id AND s.conversation_id = c.id)`,
      ),
      col(
        'handoffReason',
        'Handoff reason',
        'string',
        `(SELECT s.handoff_reason FROM ai_conversation_states s WHERE s.workspace_id = c.workspace_id AND s.conversation_id = c.id)`,
      ),
      col('resolvedAt', 'Resolved', 'timestamp', 'c.resolved_at'),
    ],
  },
  {
    key: 'catalog',
    name: 'Catalogue',
    description: 'One row per catalogue item (a snapshot: the window does not apply)',
    alias: 'i',
    from: 'catalog_items i',
    time: null,
    sortTime: 'i.created_at',
    sortId: 'i.id',
    channel: null,
    queue: null,
    columns: [
      col('id', 'Item', 'string', 'i.id::text'),
      col('externalId', 'External id', 'string', 'i.external_id'),
      col('name', 'Name', 'string', 'i.name'),
      col('sku', 'SKU', 'string', 'i.sku'),
      col('category', 'Category', 'string', 'i.category'),
      col('price', 'Price', 'string', `i.price #>> '{}'`),
      col('currency', 'Currency', 'string', 'i.currency'),
      col('stock', 'Stock', 'number', 'i.stock'),
      col('status', 'Status', 'string', 'i.status'),
      col('source', 'Source', 'string', 'i.source'),
      col('createdAt', 'Created', 'timestamp', 'i.created_at'),
      col('updatedAt', 'Updated', 'timestamp', 'i.updated_at'),
    ],
  },
];

export function findReport(key: string): ReportSpec | null {
  return REPORTS.find((r) => r.key === key) ?? null;
}

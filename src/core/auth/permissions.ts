import type { Role } from './roles';

/** One key per capability (DESIGN §3.4). */
export const PERMISSIONS = {
  'conversations.view_all': 'See every conversation, not only those assigned to you or unassigned in your queues',
  'conversations.reply': 'Reply to customers and work conversations',
  'conversations.assign': 'Assign conversations to agents and queues',
  'conversations.views': 'Create and delete shared conversation views',
  'tickets.view': 'See tickets',
  'tickets.manage': 'Create, edit and comment on tickets',
  'tickets.settings': 'Change ticket settings',
  'contacts.view': 'See contacts and companies',
  'contacts.manage': 'Create, edit and delete contacts, companies and notes',
  'contacts.import': 'Import contacts from CSV',
  'contacts.merge': 'Merge duplicate contacts',
  'contacts.fields': 'Manage contact custom fields',
  'queues.manage': 'Manage queues, capacity and routing',
  'sla.manage': 'Manage SLA policies',
  'automations.manage': 'Manage automations and flows',
  'ai_agents.manage': 'Manage AI agents',
  'analytics.view': 'See analytics',
  'analytics.dashboards': 'Manage dashboards',
  'reports.view': 'See reports',
  'reports.export': 'Export reports',
  'catalog.view': 'See the product catalogue',
  'catalog.manage': 'Manage the product catalogue, imports and website syncs',
  'channels.manage': 'Connect and disconnect channels',
  'developer.manage': 'Manage API tokens and webhooks',
  'permissions.manage': 'Change the role permission matrix',
  'workspace.manage': 'Manage workspace settings and members',
} as const;

export type PermissionKey = keyof typeof PERMISSIONS;
export const PERMISSION_KEYS = Object.keys(PERMISSIONS) as PermissionKey[];

export function isPermissionKey(value: string): value is PermissionKey {
  return Object.hasOwn(PERMISSIONS, value);
}

const SUPERVISOR_EXCLUDED: readonly PermissionKey[] = [
  'channels.manage',
  'developer.manage',
  'permissions.manage',
  'workspace.manage',
];

export const DEFAULT_MATRIX: Readonly<Record<Role, readonly PermissionKey[]>> = {
  ADMIN: PERMISSION_KEYS,
  SUPERVISOR: PERMISSION_KEYS.filter((key) => !SUPERVISOR_EXCLUDED.includes(key)),
  AGENT: ['conversations.reply', 'tickets.view', 'tickets.manage', 'contacts.view', 'contacts.manage', 'catalog.view'],
};

/** Known API token scopes (DESIGN §3.2). */
export const SCOPES = ['catalog:write'] as const;
export type Scope = (typeof SCOPES)[number];

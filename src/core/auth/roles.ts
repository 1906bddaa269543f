export const ROLES = ['ADMIN', 'SUPERVISOR', 'AGENT'] as const;
export type Role = (typeof ROLES)[number];

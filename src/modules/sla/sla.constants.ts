import { CHANNEL_TYPES } from 'src/modules/channels';

/** Channel types a policy may be limited to (DESIGN §4.1). */
export const SLA_CHANNEL_TYPES = CHANNEL_TYPES;

/** Targets from one minute to one year. */
export const MAX_SLA_MINUTES = 525_600;
/** Policies per workspace: matching walks them in order for every new conversation and ticket. */
export const MAX_SLA_POLICIES = 100;
/** The breach timer's period (worker roles only). */
export const SLA_CHECK_INTERVAL_MS = 30_000;
/** Targets checked per statement of the breach timer. */
export const SLA_CHECK_BATCH = 500;

export const SLA_TARGETS = ['FIRST_RESPONSE', 'RESOLUTION'] as const;
export type SlaTarget = (typeof SLA_TARGETS)[number];

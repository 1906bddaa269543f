/** What a policy's conditions are matched against: a new conversation or ticket. */
export interface SlaSubject {
  readonly priority: string;
  /** Null for a ticket without a conversation: a policy limited to channel types does not match it. */
  readonly channelType: string | null;
  readonly queueId: string | null;
}

export interface MatchablePolicy {
  readonly active: boolean;
  readonly priorities: readonly string[];
  readonly channelTypes: readonly string[];
  readonly queueIds: readonly string[];
}

export interface DueTimes {
  readonly firstResponseDueAt: Date;
  readonly resolutionDueAt: Date;
}

/** Active, and every non-empty condition list contains the subject's value (empty = any). */
export function policyMatches(policy: MatchablePolicy, subject: SlaSubject): boolean {
  if (!policy.active) return false;
  if (policy.priorities.length > 0 && !policy.priorities.includes(subject.priority)) return false;
  if (policy.channelTypes.length > 0 && (!subject.channelType || !policy.channelTypes.includes(subject.channelType))) {
    return false;
  }
  if (policy.queueIds.length > 0 && (!subject.queueId || !policy.queueIds.includes(subject.queueId))) return false;
  return true;
}

/** The first matching policy of a list already in matching order. */
export function firstMatchingPolicy<T extends MatchablePolicy>(ordered: readonly T[], subject: SlaSubject): T | null {
  return ordered.find((policy) => policyMatches(policy, subject)) ?? null;
}

/** Due times counted in wall-clock minutes from `from` (no business hours; hold pauses nothing). */
export function dueTimes(
  policy: { readonly firstResponseMinutes: number; readonly resolutionMinutes: number },
  from: Date,
): DueTimes {
  return {
    firstResponseDueAt: new Date(from.getTime() + policy.firstResponseMinutes * 60_000),
    resolutionDueAt: new Date(from.getTime() + policy.resolutionMinutes * 60_000),
  };
}

import { Injectable } from '@nestjs/common';

/**
 * Moves what a module keeps for contacts (conversations, tickets, …) from the duplicates to the
 * primary. Runs inside the merge transaction, before the duplicates are deleted: use your
 * repositories as usual (TransactionHost gives them the merge's transaction) and never another
 * connection. Throwing rolls the whole merge back (an AppException reaches the client as is).
 */
export type ContactMergeHook = (primaryId: string, duplicateIds: readonly string[]) => Promise<void>;

/**
 * Registry of merge hooks. A module that stores contact ids registers one at start-up, e.g.
 * `onModuleInit() { this.mergeHooks.register('conversations', (p, d) => this.repo.moveContact(d, p)); }`.
 * Tables that reference contacts with a foreign key must be moved here, or deleting the duplicates fails or cascades.
 */
@Injectable()
export class ContactMergeHooks {
  private readonly hooks = new Map<string, ContactMergeHook>();

  /** Registers (or replaces) the hook of one module; hooks run in registration order. */
  register(name: string, hook: ContactMergeHook): void {
    this.hooks.set(name, hook);
  }

  unregister(name: string): void {
    this.hooks.delete(name);
  }

  names(): string[] {
    return [...this.hooks.keys()];
  }

  /** Called by the merge, inside its transaction. */
  async run(primaryId: string, duplicateIds: readonly string[]): Promise<void> {
    for (const hook of this.hooks.values()) await hook(primaryId, duplicateIds);
  }
}

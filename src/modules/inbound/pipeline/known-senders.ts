import { type ContactIdentityInput, type KnownContact, contactIdentityKey } from 'src/modules/contacts';

/**
 * What the senders of a group of events already have in the database, read once before the group's
 * events run (InboundProcessor.lookUpSenders: two read-only statements, under the senders' locks):
 * the contact holding each sender's channel identity, and that contact's conversation on the channel
 * that is not RESOLVED. Saves the two per-message look-ups (identity find-or-create, open
 * conversation) for a sender the workspace knows (docs/performance.md, session 25).
 *
 * Each entry is handed out ONCE: the first event of a sender in the group uses it; a later event of
 * the same sender (or contact) takes the per-message path, which reads the current state — so
 * nothing an earlier event of the group created, changed, or rolled back to a savepoint is hidden
 * by the look-up. The conversation id is a candidate only: the message store locks the row and
 * re-checks that it is still not RESOLVED (InboundMessagesService.appendToOpen), so a conversation
 * resolved meanwhile — by an agent, or by an earlier event of the group — is never written to. A
 * group that throws rolls back as a whole, and this object goes with it.
 */
export class KnownSenders {
  constructor(
    private readonly contacts: Map<string, KnownContact>,
    /** Keyed `channelId:contactId`. */
    private readonly openConversations: Map<string, string>,
  ) {}

  /** The contact holding this identity as read for the group, once; undefined: resolve it as usual. */
  takeContact(identity: ContactIdentityInput): KnownContact | undefined {
    const key = contactIdentityKey(identity);
    const found = this.contacts.get(key);
    this.contacts.delete(key);
    return found;
  }

  /** The contact's conversation on the channel that was not RESOLVED when read, once; undefined: open it as usual. */
  takeOpenConversation(channelId: string, contactId: string): string | undefined {
    const key = `${channelId}:${contactId}`;
    const found = this.openConversations.get(key);
    this.openConversations.delete(key);
    return found;
  }
}

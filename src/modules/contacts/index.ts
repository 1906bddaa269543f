/** What other modules may use from contacts: import from 'src/modules/contacts', nothing deeper. */
export { ContactsModule } from './contacts.module';
export {
  ContactsService,
  contactIdentityKey,
  type ContactIdentityInput,
  type KnownContact,
  type ContactProfileInput,
  type ResolvedContactResult,
} from './contacts.service';
export { ContactMergeHooks, type ContactMergeHook } from './contact-merge-hooks.service';
export type {
  ContactResponse,
  ContactIdentityResponse,
  ContactCompanySummary,
  ContactNoteResponse,
} from './dto/contact.dto';
export type { CustomFieldValue, CustomFieldValues, CustomFieldType } from './custom-fields.util';

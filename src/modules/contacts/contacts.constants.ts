export const MAX_NAME_LENGTH = 200;
/** `GET /contacts/:id` carries the latest notes, newest first. */
export const DETAIL_NOTES_LIMIT = 100;
export const MAX_MERGE_DUPLICATES = 50;
/** Contacts listed per duplicate group. */
export const DUPLICATE_GROUP_CONTACTS = 20;
export const IMPORT_MAX_FILE_BYTES = 20 * 1024 * 1024;
export const IMPORT_BATCH_SIZE = 1000;
/** Row errors returned by one import; `errorCount` has the total. */
export const IMPORT_MAX_REPORTED_ERRORS = 1000;

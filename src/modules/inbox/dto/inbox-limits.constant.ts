/** Size limits of the inbox DTOs. */
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 50;
export const MAX_SUBJECT_LENGTH = 200;
export const MAX_NOTE_LENGTH = 10_000;
export const MAX_SEARCH_LENGTH = 200;

/** Size limits of the inbox DTOs. */
export const MAX_SEARCH_LENGTH = 200;

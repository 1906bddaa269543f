/** class-transformer helpers shared by the contacts DTOs. */
export const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
export const trimLower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;
export const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;
/** Query and form booleans arrive as text. */
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
};
/** Present (even null) → validate; absent → skip. For fields where null is not a valid value. */
export const isPresent = (_: object, value: unknown): boolean => value !== undefined;

/** The delimiters a spreadsheet saves with: comma, semicolon (comma-decimal locales), tab. */
export const COMMON_DELIMITERS = [',', ';', '\t'] as const;

/**
 * The delimiter of the header line: the most frequent of `candidates` outside quotes, the first
 * candidate when tied or none is found.
 */
export function detectDelimiter(sample: string, candidates: readonly string[] = COMMON_DELIMITERS): string {
  const counts = new Map<string, number>(candidates.map((d) => [d, 0]));
  let quoted = false;
  for (let i = 0; i < sample.length && i < 65_536; i++) {
    const ch = sample[i] as string;
    if (ch === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (ch === '\n' || ch === '\r') break;
    else if (counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = candidates[0] ?? ',';
  for (const d of candidates) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

/**
 * A header as synonym tables compare it: case, spaces, punctuation and accents do not matter, letters
 * of every script are kept (`E-mail Address ` → `emailaddress`, `Unit-Price (€)` → `unitprice`,
 * `Catégorie` → `categorie`).
 */
export function normalizeHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** A `mapping` form field: the JSON object it holds, or null when it is not a JSON object. */
export function parseJsonObject(raw: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}

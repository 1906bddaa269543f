/**
 * "Never a made-up price" (issue 13): every price-like figure in the LLM's answer must be the
 * displayed price of an item it was given. Price-like: a number next to a currency sign or code
 * ("$12", "12.50 USD", "€ 1.299", "1,299 EUR"), or a number with decimals. Figures are compared as
 * numbers and as text, so "1,299" and "1299" are the same price.
 */
const CURRENCY = String.raw`(?:[$€£¥₹]|\b(?:usd|eur|gbp|mxn|ars|clp|cop|pen|brl|jpy|inr|cad|aud|chf|dollars?|euros?|pesos?)\b)`;
const NUMBER = String.raw`\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const PRICE_LIKE = new RegExp(
  String.raw`${CURRENCY}\s?(${NUMBER})|(${NUMBER})\s?${CURRENCY}|(\d+[.,]\d{2})(?!\d)`,
  'giu',
);

function canon(figure: string): string[] {
  const compact = figure.replace(/\s/g, '');
  const out = new Set<string>([compact]);
  // 1,299.50 (en) and 1.299,50 (es): both read as 1299.5
  const en = Number(compact.replace(/,/g, ''));
  const es = Number(compact.replace(/\./g, '').replace(',', '.'));
  if (Number.isFinite(en)) out.add(String(en));
  if (Number.isFinite(es)) out.add(String(es));
  return [...out];
}

/** The figures of `text` that are price-like but are none of `allowedPrices` (the items' displayed prices). */
export function unknownPrices(text: string, allowedPrices: readonly string[]): string[] {
  const allowed = new Set<string>();
  for (const price of allowedPrices) {
    allowed.add(price.trim());
    const numeric = price.match(/\d[\d.,\s]*/g) ?? [];
    for (const n of numeric) for (const c of canon(n.trim().replace(/[.,]$/, ''))) allowed.add(c);
  }
  const bad: string[] = [];
  for (const match of text.matchAll(PRICE_LIKE)) {
    const figure = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (!figure) continue;
    if (!canon(figure).some((c) => allowed.has(c))) bad.push(match[0].trim());
  }
  return bad;
}

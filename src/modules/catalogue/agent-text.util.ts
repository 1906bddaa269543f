import type { CatalogItemStatus, CatalogPrice } from './catalog-item.entity';
import { formatPriceDisplay } from './price.util';

/** What the agent text needs of an item: a stored item, a CSV preview row or a synced product. */
export interface AgentCatalogItem {
  readonly name: string | null;
  readonly price: CatalogPrice | null;
  readonly currency: string | null;
  readonly description: string | null;
  readonly sku: string | null;
  readonly category: string | null;
  readonly stock: number | null;
  readonly images: readonly string[];
  readonly status?: CatalogItemStatus;
}

/** Descriptions longer than this are cut (with an ellipsis) so one item cannot flood the agent's context. */
export const AGENT_DESCRIPTION_LIMIT = 600;

function clean(value: string | null): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

/**
 * THE rendering of a catalogue item as the AI agent reads it (DESIGN §9, §12). The CSV preview shows
 * exactly this text, and the AI agent module uses the same function, so "as the agent will read
 * them" is literally true. One fact per line, absent facts left out:
 *
 * ```
 * Espresso Machine Pro
 * Price: 1,299.50 USD
 * Stock: 3 in stock            ← "Stock: out of stock" at 0 or below; no line when stock is not counted
 * Description: Twin boiler …
 * SKU: EM-PRO-1
 * Category: Coffee
 * Images: 2
 * ```
 */
export function renderItemForAgent(item: AgentCatalogItem): string {
  const lines: string[] = [clean(item.name) ?? 'Unnamed product'];
  const price = formatPriceDisplay(item.price);
  const currency = clean(item.currency);
  if (price !== null) lines.push(`Price: ${price}${currency ? ` ${currency}` : ''}`);
  if (item.stock !== null) lines.push(item.stock <= 0 ? 'Stock: out of stock' : `Stock: ${item.stock} in stock`);
  const description = clean(item.description);
  if (description) {
    const cut =
      description.length > AGENT_DESCRIPTION_LIMIT
        ? `${description.slice(0, AGENT_DESCRIPTION_LIMIT - 1).trimEnd()}…`
        : description;
    lines.push(`Description: ${cut}`);
  }
  const sku = clean(item.sku);
  if (sku) lines.push(`SKU: ${sku}`);
  const category = clean(item.category);
  if (category) lines.push(`Category: ${category}`);
  lines.push(`Images: ${item.images.length}`);
  if (item.status === 'OFF_SALE') lines.push('Status: off sale (do not offer it)');
  return lines.join('\n');
}

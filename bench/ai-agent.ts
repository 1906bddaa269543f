/**
 * AI agent bench (issue 13, DESIGN §13): the built-in agent's answer latency over a 10,000-item
 * catalogue, on the embedded engine and (with DATABASE_URL) PostgreSQL. Goal: p95 < 50 ms.
 *
 * Catalogue, seeded set-based (one `INSERT … SELECT generate_series`, then ANALYZE): 10,000 on-sale
 * items named "<brand> <adjective> <noun> <model>" (20 brands × 20 adjectives × 30 nouns, so a brand
 * or a noun is shared by hundreds of items), 8 categories, colour keywords, SKUs, descriptions, a photo;
 * plus 5 % off-sale items. `--short`: 1,000 items, fewer questions.
 *
 * Questions (one at a time, as the playground asks them): brand + noun, the full name, brand + a
 * misspelt noun, the SKU in lower case, a photo request, and an unknown product. Each answer is
 * checked (the items named must be the products asked about; the unknown product hands off), so a
 * fast wrong answer does not pass. Figures: the agent's own time (`latencyMs` of
 * `POST /ai-agents/:id/playground`, without HTTP) and the client's round trip, p50 / p95; baseline:
 * a bare `SELECT 1` round trip to the same database from the bench, measured in the same run.
 */
import type { Client } from 'pg';
import { sequential } from './lib/load';
import {
  type Json,
  type Service,
  adminSession,
  call,
  commonEnv,
  serviceDb,
  startService,
  stop,
  withDataDir,
  withDatabase,
} from './lib/service';
import { type BenchContext, type BenchRow, atLeast, below, round } from './lib/types';

export const name = 'ai-agent';

const BRANDS = ['Aurora', 'Nimbus', 'Orbit', 'Pulse', 'Boom', 'Zenith', 'Atlas', 'Nova', 'Vega', 'Lumen'];
const BRANDS_2 = ['Terra', 'Polar', 'Echo', 'Summit', 'Harbor', 'Willow', 'Cedar', 'Falcon', 'Quartz', 'Ember'];
const ADJECTIVES = [
  'Electric',
  'Wireless',
  'Compact',
  'Classic',
  'Pro',
  'Mini',
  'Smart',
  'Deluxe',
  'Ultra',
  'Eco',
  'Steel',
  'Bamboo',
  'Ceramic',
  'Leather',
  'Cotton',
  'Glass',
  'Digital',
  'Portable',
  'Foldable',
  'Premium',
];
const NOUNS = [
  'Kettle',
  'Toaster',
  'Blender',
  'Speaker',
  'Headphones',
  'Lamp',
  'Backpack',
  'Wallet',
  'Scarf',
  'Jacket',
  'Mug',
  'Teapot',
  'Skillet',
  'Knife',
  'Mat',
  'Bottle',
  'Watch',
  'Charger',
  'Keyboard',
  'Mouse',
  'Monitor',
  'Candle',
  'Pillow',
  'Clock',
  'Umbrella',
  'Puzzle',
  'Scooter',
  'Racket',
  'Grinder',
  'Mixer',
];
const COLOURS = ['red', 'blue', 'green', 'black', 'white', 'grey', 'pink', 'orange'];
const CATEGORIES = ['Kitchen', 'Electronics', 'Home', 'Fashion', 'Sports', 'Toys', 'Coffee', 'Beauty'];
const WARM_UP = 10;

interface Item {
  readonly id: string;
  readonly name: string;
  readonly sku: string;
  readonly images: string[];
}

interface Question {
  readonly kind: 'brand+noun' | 'full name' | 'typo' | 'sku' | 'photo' | 'unknown';
  readonly message: string;
  /** Whether an answer is right. */
  readonly check: (answer: Json) => boolean;
}

const sqlArray = (values: readonly string[]): string => `ARRAY[${values.map((v) => `'${v}'`).join(',')}]`;

/** One statement: `count` items in the workspace (every 20th off sale), then ANALYZE. */
async function seed(db: Client, workspaceId: string, count: number): Promise<void> {
  await db.query(
    `INSERT INTO catalog_items (workspace_id, external_id, name, price, currency, description, sku, category, stock,
                                images, keywords, status, off_sale_reason, source)
     SELECT '${workspaceId}', 'bench-' || i, p.name, to_jsonb(10 + i % 500 + CASE WHEN i % 3 = 0 THEN 0.5 ELSE 0 END), 'USD',
            p.name || ': a bench product with a description of its own.', 'SKU-' || i,
            (${sqlArray(CATEGORIES)})[1 + i % ${CATEGORIES.length}],
            CASE WHEN i % 7 = 0 THEN 0 WHEN i % 5 = 0 THEN NULL ELSE i % 40 END,
            ARRAY['https://img.example.com/' || i || '.jpg'],
            ARRAY[(${sqlArray(COLOURS)})[1 + (i / 3) % ${COLOURS.length}], 'gift'],
            CASE WHEN i % 20 = 19 THEN 'OFF_SALE' ELSE 'ON_SALE' END,
            CASE WHEN i % 20 = 19 THEN 'MANUAL' END, 'FEED'
       FROM generate_series(0, ${count - 1}) AS i
       CROSS JOIN LATERAL (
         SELECT (${sqlArray([...BRANDS, ...BRANDS_2])})[1 + i % 20] || ' ' ||
                (${sqlArray(ADJECTIVES)})[1 + (i / 20) % ${ADJECTIVES.length}] || ' ' ||
                (${sqlArray(NOUNS)})[1 + (i / 400 + i) % ${NOUNS.length}] || ' ' || (100 + i % 900) AS name
       ) p`,
  );
  await db.query('ANALYZE catalog_items');
  await db.query('ANALYZE catalog_agent_vocabulary');
}

/** Two adjacent letters swapped after the second ("toaster" → "toastre"); short words stay. */
function typo(word: string): string {
  if (word.length < 6) return word;
  const i = word.length - 2;
  const swapped = word.slice(0, i) + word[i + 1] + word[i];
  return swapped === word ? word : swapped;
}

function questions(items: readonly Item[], count: number): Question[] {
  const out: Question[] = [];
  const words = (item: Item): string[] => item.name.toLowerCase().split(' ');
  /** Every item answered has the brand and the noun asked about. */
  const brandNoun = (brand: string, noun: string) => (answer: Json) => {
    const ids = answer.items as string[];
    const names = ids.map((id) => byId.get(id)?.name.toLowerCase().split(' ') ?? []);
    return !answer.handoff && ids.length > 0 && names.every((n) => n[0] === brand && n[2] === noun);
  };
  const byId = new Map(items.map((i) => [i.id, i]));
  for (let n = 0; n < count; n++) {
    const item = items[(n * 7919) % items.length]!;
    const [brand, , noun] = words(item) as [string, string, string, string];
    switch (n % 6) {
      case 0:
        out.push({ kind: 'brand+noun', message: `how much is the ${brand} ${noun}?`, check: brandNoun(brand, noun) });
        break;
      case 1:
        out.push({
          kind: 'full name',
          message: `is the ${item.name.toLowerCase()} in stock?`,
          check: (a) => !a.handoff && (a.items as string[])[0] === item.id,
        });
        break;
      case 2:
        out.push({
          kind: 'typo',
          message: `price of the ${brand} ${typo(noun)} please`,
          check: brandNoun(brand, noun),
        });
        break;
      case 3:
        out.push({
          kind: 'sku',
          message: `${item.sku.toLowerCase()} price`,
          check: (a) => !a.handoff && (a.items as string[])[0] === item.id,
        });
        break;
      case 4:
        out.push({
          kind: 'photo',
          message: `can I see a photo of the ${brand} ${noun}`,
          check: (a) => brandNoun(brand, noun)(a) && Array.isArray(a.images) && a.images.length > 0,
        });
        break;
      default:
        out.push({ kind: 'unknown', message: 'do you sell garden hoses?', check: (a) => a.handoff === true });
    }
  }
  return out;
}

async function selectBaseline(db: Client, n: number): Promise<number> {
  return (await sequential(n, async () => void (await db.query('SELECT 1')))).p95;
}

async function measureEngine(ctx: BenchContext, engine: string, service: Service): Promise<BenchRow[]> {
  const { base } = service;
  const size = ctx.short ? 1_000 : 10_000;
  const asked = ctx.short ? 60 : 300;
  const admin = await adminSession(base);
  const db = await serviceDb(service);
  try {
    ctx.log(`ai-agent: seeding ${size} catalogue items (${engine})`);
    const seedStart = performance.now();
    await seed(db, admin.workspaceId, size);
    const seedMs = Math.round(performance.now() - seedStart);
    const items = (
      await db.query(
        `SELECT id::text, name, sku, images FROM catalog_items WHERE workspace_id = '${admin.workspaceId}' AND status = 'ON_SALE' ORDER BY external_id`,
      )
    ).rows as Item[];
    const agent = await call(base, 'POST', '/ai-agents', admin.headers, { name: 'Bench agent', provider: 'BUILTIN' });
    const path = `/ai-agents/${String(agent.id)}/playground`;
    const list = questions(items, asked + WARM_UP);

    const baselineP95 = await selectBaseline(db, asked);
    const agentTimes: number[] = [];
    const wrong: string[] = [];
    let handoffs = 0;
    let n = 0;
    const roundTrip = await sequential(
      asked,
      async () => {
        const q = list[n++]!;
        const answer = await call(base, 'POST', path, admin.headers, { message: q.message });
        if (n <= WARM_UP) return;
        agentTimes.push(Number(answer.latencyMs));
        if (answer.handoff) handoffs++;
        if (!q.check(answer)) wrong.push(`${q.kind}: "${q.message}" → ${JSON.stringify(answer.reply).slice(0, 120)}`);
      },
      WARM_UP,
    );
    const after = await selectBaseline(db, asked);
    const sorted = [...agentTimes].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
    const p50 = pct(50);
    const p95 = pct(95);
    const right = ((asked - wrong.length) / asked) * 100;
    for (const w of wrong.slice(0, 5)) ctx.log(`ai-agent: wrong answer (${engine}) ${w}`);
    const sizeNote = `${size.toLocaleString('en')} items (+5 % off sale), seeded in ${seedMs} ms; ${asked} questions`;
    const baseline = `SELECT 1 p95 ${baselineP95.toFixed(2)} ms`;
    return [
      {
        figure: `built-in answer p95, ${size.toLocaleString('en')} items (${engine})`,
        value: p95,
        unit: 'ms',
        ...below(p95, 50),
        ratio: round(p95 / baselineP95, 1),
        baseline,
        note: `the agent's own time (playground latencyMs, whole ms); p50 ${p50} ms; ${sizeNote}; handoffs ${handoffs}`,
      },
      {
        figure: `playground round trip p95, ${size.toLocaleString('en')} items (${engine})`,
        value: round(roundTrip.p95),
        unit: 'ms',
        ...below(roundTrip.p95, 50),
        ratio: round(roundTrip.p95 / baselineP95, 1),
        baseline,
        note: `POST /ai-agents/:id/playground as the client sees it (auth, agent, answer, HTTP); p50 ${roundTrip.p50.toFixed(1)} ms`,
      },
      {
        figure: `built-in answers right (${engine})`,
        value: round(right),
        unit: '%',
        ...atLeast(right, 95),
        correctness: true,
        note: `${asked - wrong.length}/${asked} (brand + noun, full name, typo, SKU, photo, unknown → handoff)${wrong.length ? `; first wrong: ${wrong[0]}` : ''}`,
      },
      {
        figure: `bare SELECT 1 round trip p95 (${engine})`,
        value: round(baselineP95, 2),
        unit: 'ms',
        note: `baseline of the answer rows; measured again after them: ${after.toFixed(2)} ms`,
      },
    ];
  } finally {
    await db.end();
  }
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  if (ctx.embedded)
    await withDataDir(async (dir) => {
      const service = await startService(commonEnv(dir));
      try {
        rows.push(...(await measureEngine(ctx, 'embedded', service)));
      } finally {
        await stop(service.child);
      }
    });
  if (ctx.databaseUrl) {
    await withDataDir((dir) =>
      withDatabase(ctx.databaseUrl!, async (url) => {
        const service = await startService({ ...commonEnv(dir), DATABASE_URL: url });
        try {
          rows.push(...(await measureEngine(ctx, 'PG', service)));
        } finally {
          await stop(service.child);
        }
      }),
    );
  } else ctx.log('ai-agent: PostgreSQL round skipped (needs DATABASE_URL)');
  return rows;
}

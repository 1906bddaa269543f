import type { TestApp } from '../../utils/test-app';
import type { Session } from '../../utils/sessions';

export interface SeedItem {
  name: string;
  price?: number | string;
  currency?: string;
  stock?: number | null;
  sku?: string;
  category?: string;
  description?: string;
  images?: string[];
  keywords?: string[];
}

/** A small shop: the products the agent tests ask about. */
export const SHOP: SeedItem[] = [
  {
    name: 'Aurora Electric Kettle',
    price: 1299.5,
    currency: 'USD',
    stock: 4,
    sku: 'AK-1',
    category: 'Kitchen',
    description: 'Steel kettle, 1.7 litres.',
    images: ['https://img.example.com/kettle.jpg'],
  },
  {
    name: 'Nimbus Toaster',
    price: 39,
    currency: 'USD',
    stock: 0,
    sku: 'NT-2',
    category: 'Kitchen',
    images: ['https://img.example.com/toaster.jpg'],
  },
  { name: 'Café Crème Capsules', price: '4,50', currency: 'EUR', sku: 'CC-10', category: 'Coffee' },
  {
    name: 'Yoga Mat',
    price: 25,
    currency: 'USD',
    stock: 10,
    sku: 'YM-1',
    category: 'Sports',
    images: ['https://img.example.com/mat.jpg'],
  },
];

export async function seedShop(t: TestApp, admin: Session, items: SeedItem[] = SHOP): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const item of items) {
    const res = await t.http.post('/catalog').set(admin.headers).send(item).expect(201);
    ids.set(item.name, res.body.id);
  }
  return ids;
}

export async function createAgent(t: TestApp, admin: Session, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.http
    .post('/ai-agents')
    .set(admin.headers)
    .send({ name: 'Shop bot', provider: 'BUILTIN', handoffMessage: 'A colleague will take it from here.', ...body })
    .expect(201);
  return res.body.id;
}

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { MockShop } from '../catalogue/mock-shop';
import { syncNow } from '../catalogue/sync-helpers';
import { connectCustom, conversationOfMessage, eventReaches, inboxEnv, postCustom } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';
import { createAgent } from './ai-helpers';

interface ShopProduct {
  id: string;
  name: string;
  price: number;
  currency: string;
  stock?: number;
  images: string[];
}

/** SPEC §2 website change effects, end to end: the shop changes, a sync runs, the agent's answers follow. */
describe('AI agent after a website sync', () => {
  let t: TestApp;
  let shop: MockShop;
  let platform: MockPlatform;
  let products: ShopProduct[];
  beforeAll(async () => {
    shop = await MockShop.start();
    platform = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(platform, { LLM_BASE_URL: '' }) });
    shop.route('/products', (req) => ({ body: req.query.get('page') === '1' ? products : [] }));
  });
  afterAll(async () => {
    await t.close();
    await shop.close();
    await platform.close();
  });

  it('quotes a new product, uses a changed price, sends the new photo, reports out of stock, no longer offers a removed product', async () => {
    const admin: Session = await signupWorkspace(t, 'Synced shop');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    products = [
      {
        id: 'p1',
        name: 'Aurora Electric Kettle',
        price: 49,
        currency: 'USD',
        stock: 5,
        images: ['https://shop.example.com/kettle-v1.jpg'],
      },
      {
        id: 'p2',
        name: 'Nimbus Toaster',
        price: 39,
        currency: 'USD',
        stock: 3,
        images: ['https://shop.example.com/toaster.jpg'],
      },
      { id: 'p3', name: 'Yoga Mat', price: 25, currency: 'USD', stock: 9, images: [] },
      { id: 'p4', name: 'Kick Scooter', price: 110, currency: 'USD', stock: 2, images: [] },
    ];
    const website = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({ name: 'Shop', url: shop.url('/products?page={page}'), intervalMinutes: 60 })
      .expect(201);
    const websiteId = website.body.id as string;
    expect((await syncNow(t, admin.headers, websiteId)).status).toBe('SUCCESS');
    const agentId = await createAgent(t, admin);
    const play = async (message: string) =>
      (await t.http.post(`/ai-agents/${agentId}/playground`).set(admin.headers).send({ message }).expect(200)).body;

    expect((await play('how much is the aurora kettle?')).reply).toContain('49 USD');
    expect((await play('do you have the denim jacket?')).handoff).toBe(true);

    // The shop changes: a new product, a new price, a new photo, out of stock, one product removed.
    products = [
      {
        id: 'p1',
        name: 'Aurora Electric Kettle',
        price: 1299.5,
        currency: 'USD',
        stock: 5,
        images: ['https://shop.example.com/kettle-v2.jpg'],
      },
      {
        id: 'p2',
        name: 'Nimbus Toaster',
        price: 39,
        currency: 'USD',
        stock: 0,
        images: ['https://shop.example.com/toaster.jpg'],
      },
      { id: 'p3', name: 'Yoga Mat', price: 25, currency: 'USD', stock: 9, images: [] },
      { id: 'p5', name: 'Denim Jacket', price: 89, currency: 'USD', stock: 4, images: [] },
    ];
    const run = await syncNow(t, admin.headers, websiteId);
    expect(run).toMatchObject({ status: 'SUCCESS', created: 1, offSale: 1 });

    const jacket = await play('how much is the denim jacket?');
    expect(jacket).toMatchObject({ handoff: false, reply: expect.stringContaining('89 USD') });
    const kettle = await play('aurora kettle price');
    expect(kettle.reply).toContain('1,299.50 USD');
    expect(kettle.reply).not.toContain('49 USD');
    expect((await play('photo of the aurora kettle please')).images).toEqual([
      'https://shop.example.com/kettle-v2.jpg',
    ]);
    expect((await play('is the nimbus toaster in stock?')).reply).toContain('out of stock');
    expect((await play('do you have the kick scooter?')).handoff).toBe(true);

    // The same through a customer's conversation: the new photo is the one sent.
    const channel = await connectCustom(t, admin, platform, { path: '/custom/synced' });
    const ack = await postCustom(t, channel, {
      senderId: 'synced-1',
      text: 'Can I see a picture of the Aurora kettle?',
    }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    await eventually(async () => {
      const sent = platform
        .received('/custom/synced')
        .map((r) => r.json as { message: { type: string; url?: string } });
      expect(sent.map((s) => s.message)).toContainEqual(
        expect.objectContaining({ type: 'IMAGE', url: 'https://shop.example.com/kettle-v2.jpg' }),
      );
    });
    const detail = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    expect(detail.messages.filter((m: { senderType: string }) => m.senderType === 'AI')).toHaveLength(2);
  });
});

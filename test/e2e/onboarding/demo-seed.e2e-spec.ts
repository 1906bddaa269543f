import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from 'src/cli-commands';
import { loginAdmin } from '../../utils/sessions';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';

describe('cli demo:seed', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Listening, as a started service does: on the embedded engine the running service executes
    // demo:seed (admin socket) through its own HTTP port.
    t = await createTestApp({ listen: true });
  }, 180_000);
  afterAll(() => t.close());

  it('fills the first workspace with contacts, a channel, conversations, tickets and a catalogue', async () => {
    const admin = await loginAdmin(t);
    const env = {
      DATA_DIR: t.dataDir,
      ...(t.config.db.url ? { DATABASE_URL: t.config.db.url } : {}),
      ...(t.config.redis.url ? { REDIS_URL: t.config.redis.url, QUEUE_PREFIX: t.config.redis.prefix } : {}),
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const result = (await runCli(['demo:seed'], env)) as Record<string, unknown>;
    expect(result).toMatchObject({
      workspaceId: admin.workspaceId,
      contacts: 4,
      catalogItems: 6,
      tickets: 3,
      inboundMessages: 4,
    });
    // Three customers wrote (one twice): three conversations, visible to the running service.
    await eventually(async () => {
      const conversations = await t.http.get('/conversations').set(admin.headers).expect(200);
      expect(conversations.body.data).toHaveLength(3);
    });
    const catalogue = await t.http.get('/catalog?limit=50').set(admin.headers).expect(200);
    expect(catalogue.body.data.map((i: { name: string }) => i.name)).toContain('Espresso Machine Pro');
    const tickets = await t.http.get('/tickets?limit=50').set(admin.headers).expect(200);
    expect(tickets.body.data.map((i: { subject: string }) => i.subject)).toContain('Replace cracked grinder hopper');
    const contacts = await t.http.get('/contacts?limit=50').set(admin.headers).expect(200);
    expect(contacts.body.data.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['Grace Hopper', 'Ada Lovelace']),
    );
  });
});

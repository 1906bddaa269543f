import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, addMember, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  eventReaches,
  inboxEnv,
  onlineAgent,
  postCustom,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';
import { createAgent, seedShop } from './ai-helpers';

interface Message {
  id: string;
  direction: string;
  senderType: string;
  type: string;
  text: string | null;
  attachments: { type: string; url: string }[];
}

describe('AI agents: API, built-in answers in the pipeline, handoff, suggested reply, AI tools (no LLM)', () => {
  let t: TestApp;
  let mock: MockPlatform;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock, { LLM_BASE_URL: '' }) });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function enterprise(): Promise<Session> {
    const admin = await signupWorkspace(t, 'Shop');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return admin;
  }

  /** Sends a customer message and returns its conversation once the event is processed. */
  async function ask(admin: Session, channel: CustomChannel, senderId: string, text: string): Promise<string> {
    const ack = await postCustom(t, channel, { senderId, text }).expect(200);
    const eventId = ack.body.eventIds?.[0] ?? ack.body.eventId;
    const event = await eventReaches(t, admin, channel.id, eventId);
    return conversationOfMessage(t, event.messageId as string);
  }

  async function messagesOf(admin: Session, conversationId: string): Promise<Message[]> {
    const res = await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200);
    return res.body.messages as Message[];
  }

  it('creates, lists, reads, changes and deletes agents; validates; meta says the LLM is not configured', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const created = await t.http
      .post('/ai-agents')
      .set(admin.headers)
      .send({ name: ' Bot ', channelIds: [channel.id], handoffKeywords: ['human'], temperature: 0.7 })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Bot',
      active: true,
      instructions: '',
      channelIds: [channel.id],
      useCatalog: true,
      handoffKeywords: ['human'],
      handoffMessage: expect.any(String),
      provider: 'BUILTIN',
      model: null,
      temperature: 0.7,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.id as string;
    const list = await t.http.get('/ai-agents?limit=10').set(admin.headers).expect(200);
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([id]);
    expect(list.body.nextCursor).toBeNull();
    const changed = await t.http
      .put(`/ai-agents/${id}`)
      .set(admin.headers)
      .send({ active: false, provider: 'openai_compatible', model: 'm1' })
      .expect(200);
    expect(changed.body).toMatchObject({ name: 'Bot', active: false, provider: 'OPENAI_COMPATIBLE', model: 'm1' });
    expect((await t.http.get(`/ai-agents/${id}`).set(admin.headers).expect(200)).body.active).toBe(false);

    for (const bad of [
      { name: 'x', provider: 'GPT' },
      { name: 'x', temperature: 2.5 },
      { name: 'x', temperature: -0.1 },
      { name: 'x', handoffKeywords: Array.from({ length: 51 }, (_, i) => `k${i}`) },
      { name: 'x', channelIds: ['not-a-uuid'] },
      { name: '' },
      { name: 'x', unknown: 1 },
    ]) {
      const res = await t.http.post('/ai-agents').set(admin.headers).send(bad).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
    }
    await t.http
      .post('/ai-agents')
      .set(admin.headers)
      .send({ name: 'x', handoffKeywords: Array.from({ length: 50 }, (_, i) => `k${i}`), temperature: 2 })
      .expect(201);

    // Another workspace's channel is not a channel of this workspace; its agents are 404 here.
    const other = await enterprise();
    const foreignChannel = await connectCustom(t, other, mock);
    const foreign = await t.http
      .post('/ai-agents')
      .set(admin.headers)
      .send({ name: 'x', channelIds: [foreignChannel.id] })
      .expect(400);
    expect(foreign.body.details[0].field).toBe('channelIds.0');
    await t.http.get(`/ai-agents/${id}`).set(other.headers).expect(404);
    await t.http.put(`/ai-agents/${id}`).set(other.headers).send({ name: 'y' }).expect(404);
    await t.http.delete(`/ai-agents/${id}`).set(other.headers).expect(404);
    await t.http.post(`/ai-agents/${id}/playground`).set(other.headers).send({ message: 'hi' }).expect(404);
    expect((await t.http.get('/ai-agents').set(other.headers).expect(200)).body.data).toEqual([]);

    const meta = await t.http.get('/ai-agents/meta').set(admin.headers).expect(200);
    expect(meta.body.providers).toEqual([
      { provider: 'BUILTIN', configured: true, models: [] },
      { provider: 'OPENAI_COMPATIBLE', configured: false, models: [] },
    ]);
    expect(meta.body.defaults).toMatchObject({ provider: 'BUILTIN', temperature: expect.any(Number) });

    // ai_agents.manage: an AGENT may not manage agents.
    const member = await addMember(t, admin, 'AGENT');
    await t.http.get('/ai-agents').set(member.headers).expect(403);

    await t.http.delete(`/ai-agents/${id}`).set(admin.headers).expect(204);
    await t.http.get(`/ai-agents/${id}`).set(admin.headers).expect(404);
  });

  it('playground: built-in answers (price as displayed, stock, photo) and hands off on unknown products and keywords; stores nothing', async () => {
    const admin = await enterprise();
    const ids = await seedShop(t, admin);
    const agentId = await createAgent(t, admin, { handoffKeywords: ['refund'] });
    const play = (message: string) =>
      t.http.post(`/ai-agents/${agentId}/playground`).set(admin.headers).send({ message }).expect(200);

    const price = await play('how much is the aurora kettel?');
    expect(price.body).toEqual({
      reply: expect.stringContaining('1,299.50 USD'),
      items: [ids.get('Aurora Electric Kettle')],
      handoff: false,
      provider: 'BUILTIN',
      latencyMs: expect.any(Number),
    });
    expect((await play('is the nimbus toaster in stock?')).body.reply).toContain('out of stock');
    expect((await play('cafe creme price')).body.reply).toContain('4,50 EUR');
    const photo = await play('can I see a photo of the yoga mat?');
    expect(photo.body.images).toEqual(['https://img.example.com/mat.jpg']);
    const unknown = await play('do you sell bicycles?');
    expect(unknown.body).toMatchObject({ handoff: true, items: [], reply: 'A colleague will take it from here.' });
    expect((await play('refund for the yoga mat please')).body.handoff).toBe(true);
    const [{ n }] = await sql<{ n: number }>(
      t,
      'SELECT count(*)::int AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.workspace_id = $1',
      [admin.workspaceId],
    );
    expect(n).toBe(0);
  });

  it('inbound: the agent answers as AI through the channel (price, photo as IMAGE), stamps first response; unknown product hands off once, then silence; assignment unchanged', async () => {
    const admin = await enterprise();
    const human = await onlineAgent(t, admin);
    await seedShop(t, admin);
    const channel = await connectCustom(t, admin, mock, { path: '/custom/ai-answers' });
    await createAgent(t, admin, { channelIds: [channel.id] });
    // The platform refuses the first delivery (retried at once): the photo must still wait for the text.
    mock.fail('/custom/ai-answers', 1);

    const conversationId = await ask(admin, channel, 'cust-ai-1', 'How much is the Aurora kettle? Can I see a photo?');
    const replies = await eventually(async () => {
      const out = (await messagesOf(admin, conversationId)).filter((m) => m.direction === 'OUTBOUND');
      expect(out).toHaveLength(2);
      return out;
    });
    expect(replies.every((m) => m.senderType === 'AI')).toBe(true);
    expect(replies[0]).toMatchObject({ type: 'TEXT', text: expect.stringContaining('1,299.50 USD') });
    expect(replies[1]).toMatchObject({
      type: 'IMAGE',
      attachments: [{ type: 'image', url: 'https://img.example.com/kettle.jpg' }],
    });
    await eventually(async () => {
      const sent = mock
        .received('/custom/ai-answers')
        .map((r) => r.json as { recipientId: string; message: { type: string; text?: string; url?: string } });
      // Delivered in the stored order, per conversation, on every job driver: the text (refused
      // once, then sent), only then the photo — although each is its own outbound job.
      expect(sent.map((s) => s.message.type)).toEqual(['TEXT', 'TEXT', 'IMAGE']);
      expect(sent[1]!.recipientId).toBe('cust-ai-1');
      expect(sent[1]!.message.text).toContain('1,299.50 USD');
      expect(sent[2]!.message.url).toBe('https://img.example.com/kettle.jpg');
    });
    const conversation = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    expect(conversation.firstResponseAt).not.toBeNull();
    expect(conversation.assigneeId).toBe(human.userId);
    expect(conversation.suggestedReply).toBeNull();

    // Unknown product: the handoff message once, then the AI stays silent; the assignee stays.
    await ask(admin, channel, 'cust-ai-1', 'Do you also sell electric bicycles?');
    await ask(admin, channel, 'cust-ai-1', 'How much is the yoga mat?');
    const after = await messagesOf(admin, conversationId);
    const outbound = after.filter((m) => m.direction === 'OUTBOUND');
    expect(outbound.map((m) => m.text)).toEqual([
      expect.stringContaining('1,299.50 USD'),
      'Aurora Electric Kettle',
      'A colleague will take it from here.',
    ]);
    const detail = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    expect(detail.assigneeId).toBe(human.userId);
    // After the handoff the human gets a suggestion instead.
    expect(detail.suggestedReply).toMatchObject({
      text: expect.stringContaining('25 USD'),
      items: [expect.any(String)],
    });
    const [state] = await sql<{ status: string; handed_off_at: Date | null }>(
      t,
      'SELECT status, handed_off_at FROM ai_conversation_states WHERE conversation_id = $1',
      [conversationId],
    );
    expect(state!.status).toBe('HANDED_OFF');
    expect(state!.handed_off_at).not.toBeNull();
  });

  it('inbound: a question naming no product is answered from the product an earlier message named', async () => {
    const admin = await enterprise();
    await seedShop(t, admin);
    const channel = await connectCustom(t, admin, mock, { path: '/custom/ai-follow-up' });
    await createAgent(t, admin, { channelIds: [channel.id] });
    const conversationId = await ask(admin, channel, 'cust-follow', 'Do you have the yoga mat?');
    await ask(admin, channel, 'cust-follow', 'how much is it?');
    const outbound = await eventually(async () => {
      const out = (await messagesOf(admin, conversationId)).filter((m) => m.direction === 'OUTBOUND');
      expect(out).toHaveLength(2);
      return out;
    });
    expect(outbound.every((m) => m.senderType === 'AI')).toBe(true);
    expect(outbound[1]!.text).toContain('25 USD');
    const [state] = await sql<{ status: string }>(
      t,
      'SELECT status FROM ai_conversation_states WHERE conversation_id = $1',
      [conversationId],
    );
    expect(state?.status ?? 'ACTIVE').toBe('ACTIVE');
  });

  it('channel restriction: an agent for another channel stays silent; a suggested reply is drafted, never sent', async () => {
    const admin = await enterprise();
    await seedShop(t, admin);
    const answered = await connectCustom(t, admin, mock, { path: '/custom/answered' });
    const other = await connectCustom(t, admin, mock, { path: '/custom/other' });
    await createAgent(t, admin, { channelIds: [answered.id] });

    const conversationId = await ask(admin, other, 'cust-other', 'is the nimbus toaster in stock?');
    const detail = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    expect(detail.messages.filter((m: Message) => m.direction === 'OUTBOUND')).toEqual([]);
    expect(detail.suggestedReply).toEqual({
      text: expect.stringContaining('out of stock'),
      items: [expect.any(String)],
      createdAt: expect.any(String),
    });
    expect(mock.received('/custom/other')).toEqual([]);

    // An inactive agent does not answer either.
    const agents = (await t.http.get('/ai-agents').set(admin.headers).expect(200)).body.data as { id: string }[];
    await t.http.put(`/ai-agents/${agents[0]!.id}`).set(admin.headers).send({ active: false }).expect(200);
    const second = await ask(admin, answered, 'cust-answered', 'yoga mat price?');
    const quiet = (await t.http.get(`/conversations/${second}`).set(admin.headers).expect(200)).body;
    expect(quiet.messages.filter((m: Message) => m.direction === 'OUTBOUND')).toEqual([]);
    expect(quiet.suggestedReply.text).toContain('25 USD');
  });

  it('suggested reply with nothing on sale: small talk only; an item put on sale is used at the next message', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock, { path: '/custom/empty-shop' });
    const detail = async (id: string) =>
      (await t.http.get(`/conversations/${id}`).set(admin.headers).expect(200)).body as {
        suggestedReply: { text: string; items: string[] } | null;
      };

    // No catalogue: a product question gets no suggestion, small talk the built-in greeting (no items).
    const conversationId = await ask(admin, channel, 'cust-empty', 'how much is the yoga mat?');
    expect((await detail(conversationId)).suggestedReply).toBeNull();
    await ask(admin, channel, 'cust-empty', 'hello!');
    const greeted = (await detail(conversationId)).suggestedReply;
    expect(greeted?.text.trim()).not.toBe('');
    expect(greeted?.items).toEqual([]);

    // The catalogue gains items: the next message's suggestion answers from them (the seed's 25 USD
    // yoga mat), and "how much is it?" still finds the product named in an earlier message.
    await seedShop(t, admin);
    await ask(admin, channel, 'cust-empty', 'how much is it?');
    expect((await detail(conversationId)).suggestedReply).toMatchObject({
      text: expect.stringContaining('25 USD'),
      items: [expect.any(String)],
    });
  });

  it('ai-reply drafts and sends; translate needs a provider (503); both 404 across workspaces', async () => {
    const admin = await enterprise();
    await seedShop(t, admin);
    const channel = await connectCustom(t, admin, mock, { path: '/custom/ai-reply' });
    const conversationId = await ask(admin, channel, 'cust-draft', 'how much is the yoga mat?');

    const draft = await t.http
      .post(`/conversations/${conversationId}/ai-reply`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(draft.body).toEqual({ text: expect.stringContaining('25 USD'), items: [expect.any(String)], sent: false });
    expect((await messagesOf(admin, conversationId)).filter((m) => m.direction === 'OUTBOUND')).toEqual([]);

    const sent = await t.http
      .post(`/conversations/${conversationId}/ai-reply`)
      .set(admin.headers)
      .send({ send: true })
      .expect(200);
    expect(sent.body).toEqual({
      text: draft.body.text,
      items: draft.body.items,
      sent: true,
      messageId: expect.any(String),
    });
    const out = (await messagesOf(admin, conversationId)).filter((m) => m.direction === 'OUTBOUND');
    expect(out).toEqual([
      expect.objectContaining({ id: sent.body.messageId, senderType: 'AI', text: draft.body.text }),
    ]);
    await eventually(async () => expect(mock.received('/custom/ai-reply')).toHaveLength(1));

    const translate = await t.http
      .post(`/conversations/${conversationId}/translate`)
      .set(admin.headers)
      .send({ text: 'hola', targetLanguage: 'en' })
      .expect(503);
    expect(translate.body.code).toBe('provider_not_configured');
    await t.http
      .post(`/conversations/${conversationId}/translate`)
      .set(admin.headers)
      .send({ targetLanguage: 'en' })
      .expect(400);

    const other = await enterprise();
    await t.http.post(`/conversations/${conversationId}/ai-reply`).set(other.headers).send({}).expect(404);
    await t.http
      .post(`/conversations/${conversationId}/translate`)
      .set(other.headers)
      .send({ text: 'x', targetLanguage: 'en' })
      .expect(404);
  });
});

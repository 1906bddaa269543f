import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { connectCustom, conversationOfMessage, eventReaches, inboxEnv, postCustom } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';
import { createAgent, seedShop } from './ai-helpers';
import { MockLlm } from './mock-llm';

describe('AI agents with an OpenAI-compatible LLM (local mock)', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let llm: MockLlm;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    llm = await MockLlm.start();
    t = await createTestApp({ env: inboxEnv(mock, { LLM_BASE_URL: llm.url, LLM_MODEL: 'mock-small' }) });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
    await llm.close();
  });
  beforeEach(() => llm.reset());

  async function enterprise(): Promise<Session> {
    const admin = await signupWorkspace(t, 'LLM shop');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return admin;
  }

  it('meta lists the server models; both providers are configured', async () => {
    const admin = await enterprise();
    const meta = await t.http.get('/ai-agents/meta').set(admin.headers).expect(200);
    expect(meta.body.providers).toEqual([
      { provider: 'BUILTIN', configured: true, models: [] },
      { provider: 'OPENAI_COMPATIBLE', configured: true, models: ['mock-small', 'mock-large'] },
    ]);
    expect(meta.body.defaults.model).toBe('mock-small');
  });

  it('playground: the LLM gets the instructions, the history and the matched items as the agent reads them; temperature and model', async () => {
    const admin = await enterprise();
    const ids = await seedShop(t, admin);
    const agentId = await createAgent(t, admin, {
      provider: 'OPENAI_COMPATIBLE',
      instructions: 'You are Aurora Shop. Be brief.',
      model: 'mock-large',
      temperature: 0.2,
    });
    const res = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({
        message: 'and how much is the kettle?',
        history: [
          { role: 'customer', text: 'hello' },
          { role: 'agent', text: 'Hi! How can I help?' },
        ],
      })
      .expect(200);
    expect(res.body).toEqual({
      reply: 'Sure! It costs 1,299.50 USD.',
      items: [ids.get('Aurora Electric Kettle')],
      handoff: false,
      provider: 'OPENAI_COMPATIBLE',
      latencyMs: expect.any(Number),
    });
    expect(llm.chats).toHaveLength(1);
    const chat = llm.chats[0]!;
    expect(chat.model).toBe('mock-large');
    expect(chat.temperature).toBeCloseTo(0.2);
    expect(chat.messages[0]!.role).toBe('system');
    expect(chat.messages[0]!.content).toContain('You are Aurora Shop. Be brief.');
    expect(chat.messages[0]!.content).toContain('Aurora Electric Kettle\nPrice: 1,299.50 USD\nStock: 4 in stock');
    expect(chat.messages.slice(1)).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: 'and how much is the kettle?' },
    ]);
  });

  it('never a made-up price: an invented figure gets the built-in answer and says why; an LLM failure falls back too', async () => {
    const admin = await enterprise();
    await seedShop(t, admin);
    const agentId = await createAgent(t, admin, { provider: 'OPENAI_COMPATIBLE' });
    llm.answer = () => 'The Aurora kettle is only $999.99 today!';
    const guarded = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({ message: 'how much is the aurora kettle?' })
      .expect(200);
    expect(guarded.body.provider).toBe('BUILTIN');
    expect(guarded.body.reply).toContain('1,299.50 USD');
    expect(guarded.body.reply).not.toContain('999.99');
    expect(guarded.body.reason).toContain('price_guard');

    llm.answer = () => 'It is 1,299.50 USD and we have it.';
    const honest = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({ message: 'how much is the aurora kettle?' })
      .expect(200);
    expect(honest.body).toMatchObject({ provider: 'OPENAI_COMPATIBLE', reply: 'It is 1,299.50 USD and we have it.' });

    llm.failures = 2; // the call and its one retry
    const failed = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({ message: 'is the nimbus toaster in stock?' })
      .expect(200);
    expect(failed.body).toMatchObject({
      provider: 'BUILTIN',
      handoff: false,
      reply: expect.stringContaining('out of stock'),
    });
    expect(failed.body.reason).toContain('llm_error');
    llm.failures = 1; // one failure: the retry answers
    llm.answer = () => 'The Yoga Mat is 25 USD.';
    const retried = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({ message: 'yoga mat price' })
      .expect(200);
    expect(retried.body).toMatchObject({ provider: 'OPENAI_COMPATIBLE', reply: 'The Yoga Mat is 25 USD.' });

    llm.failures = 2;
    const nothing = await t.http
      .post(`/ai-agents/${agentId}/playground`)
      .set(admin.headers)
      .send({ message: 'do you repair bicycles?' })
      .expect(200);
    expect(nothing.body.handoff).toBe(true);
  });

  it('inbound: the LLM agent answers after the event commits (a job), as AI through the channel; without an agent the LLM drafts the suggestion', async () => {
    const admin = await enterprise();
    await seedShop(t, admin);
    const channel = await connectCustom(t, admin, mock, { path: '/custom/llm' });
    await createAgent(t, admin, { provider: 'OPENAI_COMPATIBLE', channelIds: [channel.id] });
    const ack = await postCustom(t, channel, { senderId: 'llm-1', text: 'how much is the yoga mat?' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    await eventually(async () => {
      const detail = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
      const out = detail.messages.filter((m: { direction: string }) => m.direction === 'OUTBOUND');
      expect(out).toEqual([expect.objectContaining({ senderType: 'AI', text: 'Sure! It costs 25 USD.' })]);
    });
    await eventually(async () => expect(mock.received('/custom/llm')).toHaveLength(1));

    const other = await connectCustom(t, admin, mock, { path: '/custom/llm-other' });
    const ack2 = await postCustom(t, other, { senderId: 'llm-2', text: 'is the nimbus toaster in stock?' }).expect(200);
    const event2 = await eventReaches(t, admin, other.id, ack2.body.eventId);
    const second = await conversationOfMessage(t, event2.messageId as string);
    llm.answer = () => 'Sorry, the Nimbus Toaster is out of stock.';
    await eventually(async () => {
      const detail = (await t.http.get(`/conversations/${second}`).set(admin.headers).expect(200)).body;
      expect(detail.suggestedReply).toEqual({
        text: expect.any(String),
        items: [expect.any(String)],
        createdAt: expect.any(String),
      });
      expect(detail.messages.filter((m: { direction: string }) => m.direction === 'OUTBOUND')).toEqual([]);
    });
  });

  it('translate: a message or a text through the LLM', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const ack = await postCustom(t, channel, { senderId: 'tr-1', text: '¿Tienen envío a Madrid?' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    llm.answer = () => '{"sourceLanguage": "es", "text": "Do you ship to Madrid?"}';
    const res = await t.http
      .post(`/conversations/${conversationId}/translate`)
      .set(admin.headers)
      .send({ messageId: event.messageId, targetLanguage: 'en' })
      .expect(200);
    expect(res.body).toEqual({ text: 'Do you ship to Madrid?', sourceLanguage: 'es', targetLanguage: 'en' });
    expect(llm.chats.at(-1)!.messages.at(-1)).toEqual({ role: 'user', content: '¿Tienen envío a Madrid?' });
    llm.answer = () => 'Hola';
    const plain = await t.http
      .post(`/conversations/${conversationId}/translate`)
      .set(admin.headers)
      .send({ text: 'Hello', targetLanguage: 'es' })
      .expect(200);
    expect(plain.body).toEqual({ text: 'Hola', targetLanguage: 'es' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { signupWorkspace } from '../../utils/sessions';
import {
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  inboxEnv,
  postTelegramText,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

/**
 * Issue 9 item 9: retries with a real (short) backoff — OUTBOUND_RETRY_DELAYS=1,2 — checked through
 * `next_attempt_at`, ending FAILED with the platform's error (Telegram sendMessage answering 500).
 */
describe('Outbound delivery: real backoff, then FAILED', () => {
  let t: TestApp;
  let mock: MockPlatform;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock, { OUTBOUND_RETRY_DELAYS: '1,2' }) });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('waits about 1 s, then 2 s between attempts, and ends FAILED after the last', async () => {
    const admin = await signupWorkspace(t);
    const botToken = `${Math.floor(Math.random() * 1e9)}:AA${randomBytes(12).toString('hex')}`;
    const connected = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'TELEGRAM', botToken })
      .expect(201);
    const secret = (mock.received(`/telegram/bot${botToken}/setWebhook`, 'POST')[0]!.json as { secret_token: string })
      .secret_token;
    const chat = 100_000_000 + Math.floor(Math.random() * 800_000_000);
    const ack = await postTelegramText(t, secret, chat);
    const event = await eventReaches(t, admin, connected.body.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);

    mock.fail('/sendMessage', 10, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
    const sentAt = Date.now();
    const reply = await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'Will this arrive?' })
      .expect(201);
    const messageId = reply.body.id as string;

    const attempts: { attempts: number; next: number | null; seenAt: number }[] = [];
    const deadline = Date.now() + 20_000;
    let status = 'PENDING';
    while (Date.now() < deadline && status !== 'FAILED') {
      const [row] = await sql<{ delivery_status: string; delivery_attempts: number; next_attempt_at: Date | null }>(
        t,
        'SELECT delivery_status, delivery_attempts, next_attempt_at FROM messages WHERE id = $1',
        [messageId],
      );
      status = row!.delivery_status;
      // The last value seen for each attempt count (a send in flight holds a lease in next_attempt_at).
      const seen = {
        attempts: row!.delivery_attempts,
        next: row!.next_attempt_at ? new Date(row!.next_attempt_at).getTime() : null,
        seenAt: Date.now(),
      };
      const k = attempts.findIndex((a) => a.attempts === seen.attempts);
      if (k >= 0) attempts[k] = seen;
      else attempts.push(seen);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe('FAILED');
    const first = attempts.find((a) => a.attempts === 1)!;
    const second = attempts.find((a) => a.attempts === 2)!;
    // After attempt 1: next attempt ≈ 1 s later; after attempt 2: ≈ 2 s later (DB clock, 0.5 s slack).
    expect(first.next! - sentAt).toBeGreaterThan(500);
    expect(first.next! - sentAt).toBeLessThan(4_000);
    expect(second.next! - first.next!).toBeGreaterThan(1_500);
    const calls = mock.received(`/telegram/bot${botToken}/sendMessage`);
    expect(calls).toHaveLength(3);
    const done = await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.find((m) => m.id === messageId)?.deliveryStatus).toBe('FAILED');
    });
    expect(done.messages.find((m) => m.id === messageId)?.deliveryError).toEqual(expect.stringContaining('500'));
  }, 40_000);
});

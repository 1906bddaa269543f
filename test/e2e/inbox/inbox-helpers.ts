import { expect } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually, type TestApp } from '../../utils/test-app';
import { addMember, type Session } from '../../utils/sessions';
import type { MockPlatform } from './mock-platform';

/** The app's environment for inbox tests: platforms at the mock, fast retries, room for many sign-ups. */
export function inboxEnv(mock: MockPlatform, extra: Record<string, string> = {}): Record<string, string> {
  return { ...mock.env(), LOGIN_RATE_LIMIT: '100000', ...extra };
}

export const hexSignature = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
export const base64Signature = (secret: string, body: string): string =>
  createHmac('sha256', secret).update(body).digest('base64');

export function sql<T = Record<string, unknown>>(t: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return t.app.get(DataSource).query(query, params);
}

export interface CustomChannel {
  readonly id: string;
  readonly inboundSecret: string;
  readonly outboundSecret: string | null;
  readonly body: Record<string, unknown>;
}

/** Connects a Custom Channel whose replies go to the mock (the workspace must be ENTERPRISE). */
export async function connectCustom(
  t: TestApp,
  admin: Session,
  mock: MockPlatform,
  options: { outboundSecret?: string | null; path?: string } = {},
): Promise<CustomChannel> {
  const inboundSecret = `in-${randomBytes(12).toString('hex')}`;
  const outboundSecret =
    options.outboundSecret === undefined ? `out-${randomBytes(12).toString('hex')}` : options.outboundSecret;
  const res = await t.http
    .post('/channels/connect')
    .set(admin.headers)
    .send({
      type: 'CUSTOM',
      displayName: 'Shop app',
      inboundSecret,
      outboundUrl: `${mock.url}${options.path ?? '/custom/outbound'}`,
      ...(outboundSecret ? { outboundSecret } : {}),
    })
    .expect(201);
  return { id: res.body.id, inboundSecret, outboundSecret, body: res.body };
}

/** POSTs a Custom Channel message signed with the connection's inbound secret (or the given signature). */
export function postCustom(
  t: TestApp,
  channel: CustomChannel,
  message: Record<string, unknown> | string,
  signature?: string | null,
) {
  const raw = typeof message === 'string' ? message : JSON.stringify(message);
  const req = t.http.post(`/custom-channel/${channel.id}/inbound`).set('content-type', 'application/json');
  const sig = signature === undefined ? hexSignature(channel.inboundSecret, raw) : signature;
  if (sig !== null) req.set('x-service-signature', sig);
  return req.send(raw);
}

/** Waits until the event reaches `status` (PROCESSED by default) and returns it. */
export async function eventReaches(
  t: TestApp,
  admin: Session,
  channelId: string,
  eventId: string,
  status = 'PROCESSED',
): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const res = await t.http.get(`/channels/${channelId}/events?limit=100`).set(admin.headers).expect(200);
    const event = (res.body.data as Record<string, unknown>[]).find((e) => e.id === eventId);
    expect(event?.status).toBe(status);
    return event!;
  });
}

/** The conversation a stored message landed in. */
export async function conversationOfMessage(t: TestApp, messageId: string): Promise<string> {
  const rows = await sql<{ conversation_id: string }>(t, 'SELECT conversation_id FROM messages WHERE id = $1', [
    messageId,
  ]);
  return rows[0]!.conversation_id;
}

/** A new member of `role` who is ONLINE (so routing can pick them). */
export async function onlineAgent(
  t: TestApp,
  admin: Session,
  role: 'AGENT' | 'SUPERVISOR' | 'ADMIN' = 'AGENT',
): Promise<Session> {
  const agent = await addMember(t, admin, role);
  await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'ONLINE' }).expect(200);
  return agent;
}

/** Polls GET /conversations/:id until `check` passes. */
export function conversationSatisfies(
  t: TestApp,
  session: Session,
  conversationId: string,
  check: (body: Record<string, unknown> & { messages: Record<string, unknown>[] }) => void,
) {
  return eventually(async () => {
    const res = await t.http.get(`/conversations/${conversationId}`).set(session.headers).expect(200);
    check(res.body);
    return res.body as Record<string, unknown> & { messages: Record<string, unknown>[] };
  });
}

/** A Telegram private-chat text update through the webhook with the connection's secret token; resolves with the 200 ack. */
export function postTelegramText(t: TestApp, secret: string, chat: number, text = 'hi') {
  return t.http
    .post('/webhooks/telegram')
    .set('x-telegram-bot-api-secret-token', secret)
    .send({
      update_id: 1,
      message: {
        message_id: 1,
        from: { id: chat, is_bot: false, first_name: 'T' },
        chat: { id: chat, type: 'private' },
        date: 1,
        text,
      },
    })
    .expect(200);
}

import { expect } from '@jest/globals';
import type { TestApp } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { type CustomChannel, conversationOfMessage, eventReaches, postCustom } from '../inbox/inbox-helpers';

export type Conversation = Record<string, unknown> & { id: string; status: string; assigneeId: string | null };

/** A fresh ENTERPRISE workspace (Custom Channels need it) with its admin. */
export async function enterprise(t: TestApp): Promise<Session> {
  const admin = await signupWorkspace(t, 'Inbox');
  await setPlan(t, admin.workspaceId, 'ENTERPRISE');
  return admin;
}

/** Sends a signed Custom Channel message, waits until the pipeline stored it, returns its conversation id. */
export async function inbound(
  t: TestApp,
  admin: Session,
  channel: CustomChannel,
  message: Record<string, unknown>,
): Promise<string> {
  const ack = await postCustom(t, channel, message).expect(200);
  const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
  expect(event.outcome).toBe('MESSAGE_STORED');
  return conversationOfMessage(t, event.messageId as string);
}

/** A contact with an identity on the channel (so a conversation can be started with them). */
export async function contactOn(t: TestApp, admin: Session, channelId: string, externalId: string, name: string) {
  const res = await t.http
    .post('/contacts')
    .set(admin.headers)
    .send({ name, identities: [{ channelType: 'CUSTOM', channelId, externalId }] })
    .expect(201);
  return res.body as { id: string; name: string };
}

export async function getConversation(t: TestApp, s: Session, id: string): Promise<Conversation> {
  return (await t.http.get(`/conversations/${id}`).set(s.headers).expect(200)).body;
}

export async function listIds(t: TestApp, s: Session, query = ''): Promise<string[]> {
  const res = await t.http
    .get(`/conversations?limit=100${query ? `&${query}` : ''}`)
    .set(s.headers)
    .expect(200);
  return (res.body.data as Conversation[]).map((c) => c.id);
}

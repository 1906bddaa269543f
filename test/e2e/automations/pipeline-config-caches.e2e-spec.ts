import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { AiConversationStatesRepository } from 'src/modules/ai-agents/ai-conversation-states.repository';
import { AiConversationStatesService } from 'src/modules/ai-agents/ai-conversation-states.service';
import { AiConversationsService } from 'src/modules/ai-agents/ai-conversations.service';
import { AutomationCache } from 'src/modules/automations/automation-cache.service';
import { type TestApp, createSecondApiProcess, createTestApp, eventually, heardEverything } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { connectCustom, postCustom, sql } from '../inbox/inbox-helpers';
import type { MockPlatform } from '../inbox/mock-platform';

/**
 * What the inbound pipeline keeps in memory per workspace for its automation and AI agent stages
 * (issue 16 item 3): the active rules and flows, and the active AI agent of each channel. Each is
 * served from memory between changes (a row changed behind the services' backs is not seen), and a
 * change made through the API is seen at once in the same process and, on PostgreSQL, by another
 * process when the change commits (NOTIFY → LISTEN).
 */
const postgres = Boolean(process.env.DATABASE_URL);
const ANY_CHANNEL = '00000000-0000-4000-8000-0000000000c1';

const RULE = {
  kind: 'RULE',
  name: 'Tag refunds',
  trigger: 'message.received',
  conditions: { all: [{ field: 'message.text', operator: 'contains', value: 'refund' }], any: [] },
  actions: [{ type: 'ADD_TAGS', params: { tags: ['refund'] } }],
};

/** Names of the active rules on `message.received` the pipeline would evaluate now. */
async function activeRules(t: TestApp, workspaceId: string): Promise<string[]> {
  const snapshot = await runAsWorkspace(workspaceId, () => t.app.get(AutomationCache).current());
  return (snapshot.rules.get('message.received') ?? []).map((a) => a.name);
}

/** The name of the agent the pipeline would let answer on a channel (null: none). */
async function agentOn(t: TestApp, workspaceId: string): Promise<string | null> {
  const agent = await runAsWorkspace(workspaceId, () => t.app.get(AiConversationsService).activeAgentFor(ANY_CHANNEL));
  return agent?.name ?? null;
}

/** A real conversation of the workspace (a Custom Channel message; its replies go nowhere). */
async function conversationOf(t: TestApp, admin: Session): Promise<string> {
  const channel = await connectCustom(t, admin, { url: 'http://127.0.0.1:9' } as MockPlatform);
  await postCustom(t, channel, { senderId: `c-${randomUUID()}`, text: 'hello' }).expect(200);
  return eventually(async () => {
    const rows = await sql<{ id: string }>(t, 'SELECT id FROM conversations WHERE workspace_id = $1', [
      admin.workspaceId,
    ]);
    expect(rows).toHaveLength(1);
    return rows[0]!.id;
  });
}

/** The AI status of a conversation as the pipeline's AI stage reads it. */
function aiStatus(t: TestApp, workspaceId: string, conversationId: string): Promise<string> {
  return runAsWorkspace(workspaceId, () => t.app.get(AiConversationStatesService).statusOf(conversationId));
}

/** A handoff (as the agent's or a flow's), committed in a transaction of its own. */
function handOff(t: TestApp, workspaceId: string, conversationId: string): Promise<void> {
  return runAsWorkspace(workspaceId, () =>
    t.app.get(TransactionHost).run(() => t.app.get(AiConversationStatesService).handOff(conversationId, null, 'test')),
  );
}

async function behindTheBack(t: TestApp, sql: string, params: unknown[]): Promise<void> {
  await t.app.get(DataSource).query(sql, params);
}

async function workspace(t: TestApp, name: string): Promise<Session> {
  const admin = await signupWorkspace(t, name);
  await setPlan(t, admin.workspaceId, 'ENTERPRISE');
  return admin;
}

describe('pipeline configuration caches: automations and AI agents', () => {
  let a: TestApp;

  beforeAll(async () => {
    a = await createTestApp();
  });
  afterAll(async () => {
    await a.close();
  });

  it('in one process: active rules served from memory between changes, a change through the API seen at once', async () => {
    const admin = await workspace(a, 'Rules cache');
    expect(await activeRules(a, admin.workspaceId)).toEqual([]);
    const id = String((await a.http.post('/automations').set(admin.headers).send(RULE).expect(201)).body.id);
    expect(await activeRules(a, admin.workspaceId)).toEqual(['Tag refunds']);
    // Deactivated behind the service's back: memory is served...
    await behindTheBack(a, 'UPDATE automations SET active = false WHERE workspace_id = $1 AND id = $2', [
      admin.workspaceId,
      id,
    ]);
    expect(await activeRules(a, admin.workspaceId)).toEqual(['Tag refunds']);
    // ...a change through the API is seen on the next read.
    await a.http
      .put(`/automations/${id}`)
      .set(admin.headers)
      .send({ ...RULE, name: 'Renamed', active: true })
      .expect(200);
    expect(await activeRules(a, admin.workspaceId)).toEqual(['Renamed']);
    await a.http.delete(`/automations/${id}`).set(admin.headers).expect(204);
    expect(await activeRules(a, admin.workspaceId)).toEqual([]);
  });

  it("in one process: the channel's agent (and its absence) served from memory between changes, API changes seen at once", async () => {
    const admin = await workspace(a, 'Agent cache');
    expect(await agentOn(a, admin.workspaceId)).toBeNull();
    const created = await a.http
      .post('/ai-agents')
      .set(admin.headers)
      .send({ name: 'Shop assistant', provider: 'BUILTIN' })
      .expect(201);
    const id = String(created.body.id);
    expect(await agentOn(a, admin.workspaceId)).toBe('Shop assistant');
    // Deactivated behind the service's back: memory is served...
    await behindTheBack(a, 'UPDATE ai_agents SET active = false WHERE workspace_id = $1 AND id = $2', [
      admin.workspaceId,
      id,
    ]);
    expect(await agentOn(a, admin.workspaceId)).toBe('Shop assistant');
    // ...a change through the API is seen at once, and "no agent" is remembered as well.
    await a.http.put(`/ai-agents/${id}`).set(admin.headers).send({ name: 'Shop assistant', active: false }).expect(200);
    expect(await agentOn(a, admin.workspaceId)).toBeNull();
    await behindTheBack(a, 'UPDATE ai_agents SET active = true WHERE workspace_id = $1 AND id = $2', [
      admin.workspaceId,
      id,
    ]);
    expect(await agentOn(a, admin.workspaceId)).toBeNull();
    await a.http.put(`/ai-agents/${id}`).set(admin.headers).send({ name: 'Back again', active: true }).expect(200);
    expect(await agentOn(a, admin.workspaceId)).toBe('Back again');
    await a.http.delete(`/ai-agents/${id}`).set(admin.headers).expect(204);
    expect(await agentOn(a, admin.workspaceId)).toBeNull();
  });

  it("in one process: a conversation's AI status served from memory between writes, a handoff seen at once", async () => {
    const admin = await workspace(a, 'AI state cache');
    const conversationId = await conversationOf(a, admin);
    expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('ACTIVE');
    await handOff(a, admin.workspaceId, conversationId);
    expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('HANDED_OFF');
    await new Promise((r) => setTimeout(r, 500)); // the commit's own notification has come back
    expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('HANDED_OFF');
    // Changed behind the service's back: memory is served...
    await behindTheBack(a, `UPDATE ai_conversation_states SET status = 'ACTIVE' WHERE workspace_id = $1`, [
      admin.workspaceId,
    ]);
    expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('HANDED_OFF');
    // ...until the next write through the service drops it.
    await runAsWorkspace(admin.workspaceId, () =>
      a.app.get(TransactionHost).run(() => a.app.get(AiConversationStatesService).handToHuman(conversationId)),
    );
    expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('HUMAN');
  });

  it('a conversation the pipeline created is remembered ACTIVE without reading its AI state; a handoff still seen', async () => {
    const admin = await workspace(a, 'AI state of new conversations');
    await a.http.post('/ai-agents').set(admin.headers).send({ name: 'Greeter', provider: 'BUILTIN' }).expect(201);
    const reads = jest.spyOn(a.app.get(AiConversationStatesRepository), 'statusOf');
    try {
      const conversationId = await conversationOf(a, admin);
      expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('ACTIVE');
      expect(reads).not.toHaveBeenCalled();
      await handOff(a, admin.workspaceId, conversationId);
      expect(await aiStatus(a, admin.workspaceId, conversationId)).toBe('HANDED_OFF');
    } finally {
      reads.mockRestore();
    }
  });

  (postgres ? describe : describe.skip)('two processes on one PostgreSQL database', () => {
    /** Sent to know the other process heard every earlier notification: none of these caches reads it. */
    const MARKER = 'sla-policies';
    let b: TestApp;
    beforeAll(async () => {
      b = await createSecondApiProcess(a);
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 5_000);
    });
    afterAll(async () => {
      await b.close({ keepData: true });
    });

    it("rules changed through one instance reach the other's cache at commit; memory in between", async () => {
      const admin = await workspace(a, 'Rules, two processes');
      expect(await activeRules(b, admin.workspaceId)).toEqual([]);
      const id = String((await a.http.post('/automations').set(admin.headers).send(RULE).expect(201)).body.id);
      await eventually(async () => expect(await activeRules(b, admin.workspaceId)).toEqual(['Tag refunds']), 2_000, 5);
      await heardEverything(a, b, MARKER);
      await behindTheBack(a, 'UPDATE automations SET active = false WHERE workspace_id = $1 AND id = $2', [
        admin.workspaceId,
        id,
      ]);
      await new Promise((r) => setTimeout(r, 500));
      expect(await activeRules(b, admin.workspaceId)).toEqual(['Tag refunds']);
      await a.http
        .put(`/automations/${id}`)
        .set(admin.headers)
        .send({ ...RULE, active: false })
        .expect(200);
      await eventually(async () => expect(await activeRules(b, admin.workspaceId)).toEqual([]), 2_000, 5);
    });

    it("an agent changed through one instance reaches the other's cache at commit; memory in between", async () => {
      const admin = await workspace(a, 'Agents, two processes');
      expect(await agentOn(b, admin.workspaceId)).toBeNull();
      const created = await a.http
        .post('/ai-agents')
        .set(admin.headers)
        .send({ name: 'Night shift', provider: 'BUILTIN' })
        .expect(201);
      const id = String(created.body.id);
      await eventually(async () => expect(await agentOn(b, admin.workspaceId)).toBe('Night shift'), 2_000, 5);
      await heardEverything(a, b, MARKER);
      await behindTheBack(a, 'UPDATE ai_agents SET active = false WHERE workspace_id = $1 AND id = $2', [
        admin.workspaceId,
        id,
      ]);
      await new Promise((r) => setTimeout(r, 500));
      expect(await agentOn(b, admin.workspaceId)).toBe('Night shift');
      await a.http.put(`/ai-agents/${id}`).set(admin.headers).send({ name: 'Night shift', active: false }).expect(200);
      await eventually(async () => expect(await agentOn(b, admin.workspaceId)).toBeNull(), 2_000, 5);
    });

    it("a handoff committed by one instance reaches the other's AI status cache at commit; memory in between", async () => {
      const admin = await workspace(a, 'AI state, two processes');
      const conversationId = await conversationOf(a, admin);
      await heardEverything(a, b, MARKER);
      expect(await aiStatus(b, admin.workspaceId, conversationId)).toBe('ACTIVE');
      await behindTheBack(
        a,
        `INSERT INTO ai_conversation_states (workspace_id, conversation_id, status) VALUES ($1, $2, 'HUMAN')`,
        [admin.workspaceId, conversationId],
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(await aiStatus(b, admin.workspaceId, conversationId)).toBe('ACTIVE');
      await handOff(a, admin.workspaceId, conversationId);
      await eventually(
        async () => expect(await aiStatus(b, admin.workspaceId, conversationId)).toBe('HANDED_OFF'),
        2_000,
        5,
      );
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../utils/test-app';
import { createTestApp, eventually } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

// ~20 MB of CSV: more than the socket buffers can hold while the client pauses, and several times
// the rows PostgreSQL's portal fetches at once (2,500) plus what the stream stages buffer.
const ROWS = 20_000;
const SUBJECT_CHARS = 1000;
const embedded = !process.env.DATABASE_URL;

/** Whether the export's database cursor is still open (proof the query has not been drained yet). */
async function exportCursorOpen(t: TestApp): Promise<boolean> {
  if (embedded) {
    const rows = await sql<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'report_export_%'`,
    );
    return rows[0]!.n > 0;
  }
  const rows = await sql<{ n: number }>(
    t,
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE pid <> pg_backend_pid() AND query LIKE '%report-export:conversations%' AND state <> 'idle'`,
  );
  return rows[0]!.n > 0;
}

describe('CSV export streams from a database cursor', () => {
  let t: TestApp;
  let admin: Session;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
    admin = await signupWorkspace(t, 'Stream');
    const ws = admin.workspaceId;
    const channel = (
      await sql<{ id: string }>(
        t,
        `INSERT INTO channel_connections (workspace_id, type, name) VALUES ($1, 'CUSTOM', 'c') RETURNING id`,
        [ws],
      )
    )[0]!.id;
    const contact = (
      await sql<{ id: string }>(t, `INSERT INTO contacts (workspace_id, name) VALUES ($1, 'n') RETURNING id`, [ws])
    )[0]!.id;
    await sql(
      t,
      `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, subject, created_at)
       SELECT $1, $2, $3, 'CUSTOM', 'x' || g, g || repeat('y', ${SUBJECT_CHARS}), '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 second'
         FROM generate_series(1, ${ROWS}) g`,
      [ws, contact, channel],
    );
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it('sends the first bytes while the cursor is still open, other queries keep running, then completes', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/reports/conversations/export?format=csv',
        headers: { authorization: admin.headers.authorization!, 'x-workspace-id': admin.workspaceId },
      });
      req.on('response', resolve).on('error', reject).end();
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked');

    // Read the first chunk, then stop reading: backpressure must hold the rest in the database.
    const chunks: Buffer[] = [];
    const firstArrived = new Promise<void>((resolve) => {
      res.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) {
          res.pause();
          resolve();
        }
        chunks.push(chunk);
      });
    });
    const ended = new Promise((resolve, reject) => res.on('end', resolve).on('error', reject));
    await firstArrived;
    expect(chunks[0]!.toString('utf8').startsWith('id,createdAt,')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await exportCursorOpen(t)).toBe(true);
    // Another request is served while the export is paused (on the embedded engine: between FETCHes).
    await t.http.get('/reports').set(admin.headers).expect(200);

    res.resume();
    await ended;
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(ROWS + 1);
    expect(lines[1]!.split(',')[9]).toBe(`${ROWS}${'y'.repeat(SUBJECT_CHARS)}`);
    await eventually(async () => expect(await exportCursorOpen(t)).toBe(false));
  });

  it('a client that goes away mid-export closes the cursor', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no data')), 30_000);
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: '/reports/conversations/export',
        headers: { authorization: admin.headers.authorization!, 'x-workspace-id': admin.workspaceId },
      });
      req.on('response', (res) => {
        res.once('data', () => {
          res.pause();
          req.destroy();
          clearTimeout(timer);
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.end();
    });
    await eventually(async () => expect(await exportCursorOpen(t)).toBe(false), 20_000);
    await t.http.get('/reports/conversations').set(admin.headers).expect(200);
  });
});

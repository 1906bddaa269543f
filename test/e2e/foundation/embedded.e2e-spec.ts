import { afterAll, describe, expect, it } from '@jest/globals';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { TableMaintenanceService } from 'src/core/database/table-maintenance.service';
import { DataDirLockedError, EmbeddedPostgres } from 'src/core/database/embedded-postgres';
import { TransactionHost } from 'src/core/database/transaction-host';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { loginAdmin, signupWorkspace } from '../../utils/sessions';

describe('database runtime', () => {
  const open: TestApp[] = [];
  afterAll(async () => {
    for (const t of open.reverse()) await t.close();
  });

  it('keeps its data across a restart and bootstraps only once', async () => {
    const first = await createTestApp();
    const admin = await loginAdmin(first);
    await first.http.put('/workspace').set(admin.headers).send({ name: 'Persisted' }).expect(200);
    const created = await first.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'survivor' })
      .expect(201);
    const databaseUrl = first.config.db.url ?? undefined;
    await first.close({ keepData: true });

    const second = await createTestApp({ reuse: { dataDir: first.dataDir, databaseUrl } });
    open.push(second);
    const again = await loginAdmin(second);
    expect(again.workspaceId).toBe(admin.workspaceId);
    const ws = await second.http.get('/workspace').set(again.headers).expect(200);
    expect(ws.body.name).toBe('Persisted');
    await second.http.get('/workspace').set('authorization', `Bearer ${created.body.token}`).expect(200);
    const workspaces: { count: string }[] = await second.app
      .get(DataSource)
      .query('SELECT count(*)::text AS count FROM workspaces');
    expect(workspaces[0]!.count).toBe('1');
  });

  it('carries statements and answers of several megabytes whole, in both directions', async () => {
    const t = await createTestApp();
    open.push(t);
    // 6 MB of text: on the embedded engine it reaches the wire server in many socket chunks.
    const text = Array.from({ length: 60_000 }, (_, i) => `row ${String(i).padStart(6, '0')} `.repeat(10)).join('');
    const rows: { length: number; tail: string; echo: string }[] = await t.app
      .get(DataSource)
      .query(`SELECT length($1::text) AS length, right($1::text, 11) AS tail, $1::text AS echo`, [text]);
    expect(rows[0]!.length).toBe(text.length);
    expect(rows[0]!.tail).toBe('row 059999 ');
    expect(rows[0]!.echo === text).toBe(true);
    // The session is still in step afterwards (no message was cut or merged).
    expect(await t.app.get(DataSource).query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('serves requests while transactions are open, without deadlocking', async () => {
    const t = await createTestApp();
    open.push(t);
    const admin = await signupWorkspace(t);
    const tx = t.app.get(TransactionHost);
    const transactions = Array.from({ length: 12 }, (_, i) =>
      runAsWorkspace(admin.workspaceId, () =>
        tx.run(async () => {
          await tx.manager.query(`INSERT INTO queues (workspace_id, name) VALUES ($1, $2)`, [
            admin.workspaceId,
            `q-${i}`,
          ]);
          await new Promise((resolve) => setTimeout(resolve, 5));
          const rows: unknown[] = await tx.manager.query('SELECT id FROM queues WHERE workspace_id = $1', [
            admin.workspaceId,
          ]);
          return rows.length;
        }),
      ),
    );
    const requests = Array.from({ length: 30 }, () =>
      t.http
        .get('/workspace')
        .set(admin.headers)
        .then((res) => res.status),
    );
    const [counts, statuses] = await Promise.all([Promise.all(transactions), Promise.all(requests)]);
    expect(counts.every((n) => n >= 2)).toBe(true);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const total: { n: number }[] = await t.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM queues WHERE workspace_id = $1', [admin.workspaceId]);
    expect(total[0]!.n).toBe(13);
  });

  it('rolls back a failed transaction completely', async () => {
    const t = await createTestApp();
    open.push(t);
    const admin = await signupWorkspace(t);
    const tx = t.app.get(TransactionHost);
    await expect(
      runAsWorkspace(admin.workspaceId, () =>
        tx.run(async () => {
          await tx.manager.query(`INSERT INTO queues (workspace_id, name) VALUES ($1, 'doomed')`, [admin.workspaceId]);
          throw new Error('boom');
        }),
      ),
    ).rejects.toThrow('boom');
    const rows: unknown[] = await t.app.get(DataSource).query(`SELECT 1 FROM queues WHERE name = 'doomed'`);
    expect(rows).toHaveLength(0);
  });

  (process.env.DATABASE_URL ? it.skip : it)(
    "runs PGlite with 16 MB of shared buffers and ANALYZE's small sample (its memory is the service process's)",
    async () => {
      const t = await createTestApp();
      open.push(t);
      const rows: { shared_buffers: string }[] = await t.app.get(DataSource).query('SHOW shared_buffers');
      expect(rows).toEqual([{ shared_buffers: '16MB' }]);
      const target: { default_statistics_target: string }[] = await t.app
        .get(DataSource)
        .query('SHOW default_statistics_target');
      expect(target).toEqual([{ default_statistics_target: '20' }]);
    },
  );

  // The pipeline's statements are named prepared statements on both engines (session 23): on the
  // embedded engine every connection shares PGlite's one session, as a real server's connections
  // each have their own statements, and a replaced pool client must not collide with its predecessor.
  (process.env.DATABASE_URL ? it.skip : it)(
    'gives each connection its own prepared statements, freed when the connection closes',
    async () => {
      const t = await createTestApp();
      open.push(t);
      const url = (t.app.get(DataSource).options as { url: string }).url;
      const connect = async (): Promise<Client> => {
        const client = new Client({ connectionString: url });
        await client.connect();
        return client;
      };
      const [a, b] = [await connect(), await connect()];
      const run = async (client: Client, text: string, value: number): Promise<unknown> =>
        (await client.query({ name: 'probe', text, values: [value] })).rows;
      const ours = async (): Promise<number> =>
        (
          await b.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int %'`,
          )
        ).rows[0]!.n;
      try {
        expect(await run(a, 'SELECT $1::int + 1 AS v', 1)).toEqual([{ v: 2 }]);
        expect(await run(b, 'SELECT $1::int * 10 AS v', 1)).toEqual([{ v: 10 }]);
        expect(await run(a, 'SELECT $1::int + 1 AS v', 5)).toEqual([{ v: 6 }]);
        expect(await run(b, 'SELECT $1::int * 10 AS v', 5)).toEqual([{ v: 50 }]);
        expect(await ours()).toBe(2);
        await a.end();
        for (let i = 0; i < 100 && (await ours()) !== 1; i++) await new Promise((r) => setTimeout(r, 50));
        expect(await ours()).toBe(1);
        const c = await connect();
        expect(await run(c, 'SELECT $1::int - 1 AS v', 1)).toEqual([{ v: 0 }]);
        await c.end();
        expect(await run(b, 'SELECT $1::int * 10 AS v', 7)).toEqual([{ v: 70 }]);
      } finally {
        await b.end();
      }
    },
  );

  // PGlite runs PostgreSQL without its background workers: no autovacuum. The service's own looks
  // after the tables with autovacuum's default thresholds (DESIGN: the embedded engine keeps its
  // plans as good as PostgreSQL's); on PostgreSQL it does the same only when the server's autovacuum
  // is off (as on the CI machine), and nothing otherwise.
  it("vacuums and analyses changed tables on a timer where no autovacuum runs (embedded, or PostgreSQL with autovacuum off), and leaves PostgreSQL's autovacuum alone", async () => {
    const t = await createTestApp({ env: { EMBEDDED_MAINTENANCE_TICK_MS: '100' } });
    open.push(t);
    const db = t.app.get(DataSource);
    await db.query(`CREATE TABLE maintenance_probe (id int PRIMARY KEY, note text)`);
    await db.query(`CREATE TABLE maintenance_idle (id int PRIMARY KEY)`);
    await db.query(`INSERT INTO maintenance_probe SELECT g, 'new' FROM generate_series(1, 600) g`);
    await db.query(`UPDATE maintenance_probe SET note = 'changed' WHERE id <= 300`);
    await db.query(`INSERT INTO maintenance_idle VALUES (1)`);
    const stats = async (table: string) =>
      (
        (await db.query(
          `SELECT s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analysed, c.reltuples::int AS rows
           FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`,
          [table],
        )) as { vacuumed: boolean; analysed: boolean; rows: number }[]
      )[0]!;
    const [{ autovacuum }] = (await db.query(`SELECT current_setting('autovacuum') AS autovacuum`)) as {
      autovacuum: string;
    }[];
    if (process.env.DATABASE_URL && autovacuum === 'on') {
      await new Promise((r) => setTimeout(r, 500));
      expect(await t.app.get(TableMaintenanceService).runOnce()).toEqual([]);
      // Manual VACUUM / ANALYZE only (autovacuum's own runs are recorded apart).
      expect(await stats('maintenance_probe')).toMatchObject({ vacuumed: false, analysed: false });
      return;
    }
    // The timer, seen firing: 300 dead rows and 900 changes are past autovacuum's thresholds (50 + 20 %
    // and 50 + 10 % of the table's rows), so the table is vacuumed and analysed; the planner then knows its size.
    await eventually(async () =>
      expect(await stats('maintenance_probe')).toEqual({ vacuumed: true, analysed: true, rows: 600 }),
    );
    // One changed row is under every threshold.
    expect(await stats('maintenance_idle')).toMatchObject({ vacuumed: false, analysed: false });
    const dead: { n: number }[] = await db.query(
      `SELECT n_dead_tup::int AS n FROM pg_stat_user_tables WHERE relname = 'maintenance_probe'`,
    );
    expect(dead[0]!.n).toBe(0);
    if (!process.env.DATABASE_URL) return;
    // PostgreSQL: one process at a time — while another session holds the maintenance lock, a pass does nothing.
    await db.query(`INSERT INTO maintenance_idle SELECT g FROM generate_series(2, 600) g`);
    const other = new Client({ connectionString: t.config.db.url! });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtextextended('sis:table-maintenance', 0))`);
      await new Promise((r) => setTimeout(r, 300));
      expect(await t.app.get(TableMaintenanceService).runOnce()).toEqual([]);
      expect(await stats('maintenance_idle')).toMatchObject({ analysed: false });
    } finally {
      await other.end();
    }
    await eventually(async () => expect(await stats('maintenance_idle')).toMatchObject({ analysed: true, rows: 600 }));
  });

  (process.env.DATABASE_URL ? it.skip : it)('refuses a second process on the same data directory', async () => {
    const t = await createTestApp();
    open.push(t);
    const locked = new DataDirLockedError(t.dataDir, 1);
    expect(locked.message).toContain('admin.sock');
    // Pretend another live process holds the lock: our parent pid is alive.
    const { writeFileSync, readFileSync } = await import('node:fs');
    const lockFile = `${t.dataDir}/pgdata.lock`;
    const mine = readFileSync(lockFile, 'utf8');
    writeFileSync(lockFile, String(process.ppid));
    await expect(EmbeddedPostgres.start(t.dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
    writeFileSync(lockFile, mine);
  });
});

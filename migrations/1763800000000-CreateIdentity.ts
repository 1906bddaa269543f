import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workspaces, users, memberships, API tokens, role permissions, and the queues every workspace is
 * born with. Tenant tables lead their indexes with workspace_id and carry UNIQUE (workspace_id, id)
 * so children reference them by composite key: a cross-workspace reference cannot exist.
 */
export class CreateIdentity1763800000000 implements MigrationInterface {
  name = 'CreateIdentity1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        plan text NOT NULL DEFAULT 'STARTER' CHECK (plan IN ('STARTER', 'PRO', 'ENTERPRISE')),
        timezone text NOT NULL DEFAULT 'UTC',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL,
        name text NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT users_email_lower CHECK (email = lower(email))
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await q.query(`
      CREATE TABLE memberships (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('ADMIN', 'SUPERVISOR', 'AGENT')),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT memberships_workspace_user_key UNIQUE (workspace_id, user_id),
        CONSTRAINT memberships_workspace_id_key UNIQUE (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX memberships_user_idx ON memberships (user_id)`);
    await q.query(
      `CREATE INDEX memberships_workspace_created_idx ON memberships (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        token_hash text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        created_by uuid REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_used_at timestamptz(3),
        expires_at timestamptz(3),
        revoked_at timestamptz(3)
      )`);
    await q.query(`CREATE UNIQUE INDEX api_tokens_hash_key ON api_tokens (token_hash)`);
    await q.query(
      `CREATE INDEX api_tokens_workspace_created_idx ON api_tokens (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE role_permissions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('SUPERVISOR', 'AGENT')),
        permissions text[] NOT NULL,
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT role_permissions_workspace_role_key UNIQUE (workspace_id, role)
      )`);
    await q.query(`
      CREATE TABLE queues (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        strategy text NOT NULL DEFAULT 'ROUND_ROBIN' CHECK (strategy IN ('ROUND_ROBIN', 'LEAST_BUSY', 'MANUAL')),
        last_assigned_user_id uuid,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT queues_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT queues_workspace_name_key UNIQUE (workspace_id, name)
      )`);
    await q.query(`CREATE UNIQUE INDEX queues_one_default_idx ON queues (workspace_id) WHERE is_default`);
    await q.query(`
      CREATE TABLE queue_members (
        workspace_id uuid NOT NULL,
        queue_id uuid NOT NULL,
        user_id uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (queue_id, user_id),
        FOREIGN KEY (workspace_id, queue_id) REFERENCES queues (workspace_id, id) ON DELETE CASCADE,
        FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX queue_members_workspace_user_idx ON queue_members (workspace_id, user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'queue_members',
      'queues',
      'role_permissions',
      'api_tokens',
      'memberships',
      'users',
      'workspaces',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}

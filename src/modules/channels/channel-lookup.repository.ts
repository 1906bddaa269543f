import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import type { ChannelType } from './channel.types';

/** A connection as a webhook finds it, before any workspace context exists. */
export interface ChannelLookupRow {
  readonly id: string;
  readonly workspaceId: string;
  readonly type: ChannelType;
  readonly name: string;
  readonly status: string;
  readonly config: Record<string, unknown>;
  readonly secrets: string | null;
  readonly routingKey: string | null;
  readonly plan: string;
}

interface RawRow {
  id: string;
  workspace_id: string;
  type: ChannelType;
  name: string;
  status: string;
  config: Record<string, unknown>;
  secrets: string | null;
  routing_key: string | null;
  plan: string;
}

const SELECT = `SELECT c.id, c.workspace_id, c.type, c.name, c.status, c.config, c.secrets, c.routing_key, w.plan
  FROM channel_connections c JOIN workspaces w ON w.id = c.workspace_id`;

function toRow(raw: RawRow): ChannelLookupRow {
  return {
    id: raw.id,
    workspaceId: raw.workspace_id,
    type: raw.type,
    name: raw.name,
    status: raw.status,
    config: raw.config,
    secrets: raw.secrets,
    routingKey: raw.routing_key,
    plan: raw.plan,
  };
}

/**
 * SYSTEM (cross-tenant by design): platform webhooks name a platform account, not a workspace. These
 * lookups find the ACTIVE connection (and its workspace and plan) a webhook belongs to; everything
 * after that runs inside that workspace's context.
 */
@Injectable()
export class ChannelLookupRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Active connections of these types for these platform account ids (one query for a Meta batch). */
  async findActiveByRoutingKeys(types: readonly ChannelType[], keys: readonly string[]): Promise<ChannelLookupRow[]> {
    if (keys.length === 0) return [];
    const rows: RawRow[] = await this.tx.manager.query(
      `${SELECT} WHERE c.status = 'ACTIVE' AND c.type = ANY($1::text[]) AND c.routing_key = ANY($2::text[])`,
      [types, keys],
    );
    return rows.map(toRow);
  }

  async findActiveBySecretTokenHash(hash: string): Promise<ChannelLookupRow | null> {
    const rows: RawRow[] = await this.tx.manager.query(
      `${SELECT} WHERE c.status = 'ACTIVE' AND c.type = 'TELEGRAM' AND c.secret_token_hash = $1`,
      [hash],
    );
    return rows[0] ? toRow(rows[0]) : null;
  }

  /** Whether a DISCONNECTED Telegram connection had this secret token (its webhook then answers 404). */
  async existsDisconnectedBySecretTokenHash(hash: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT 1 FROM channel_connections WHERE status = 'DISCONNECTED' AND type = 'TELEGRAM' AND secret_token_hash = $1 LIMIT 1`,
      [hash],
    );
    return rows.length > 0;
  }

  /** Any connection by id (the Custom Channel path names it); the caller checks type and status. */
  async findById(id: string): Promise<ChannelLookupRow | null> {
    if (!isUuid(id)) return null;
    const rows: RawRow[] = await this.tx.manager.query(`${SELECT} WHERE c.id = $1`, [id]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  async existsActiveVerifyTokenHash(hash: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `SELECT 1 FROM channel_connections WHERE status = 'ACTIVE' AND verify_token_hash = $1 LIMIT 1`,
      [hash],
    );
    return rows.length > 0;
  }
}

import { Injectable } from '@nestjs/common';
import { SecretBox } from 'src/core/crypto/secret-box.service';
import type { ChannelConfig, ChannelSecrets, ChannelStatus, ChannelType, OpenedConnection } from './channel.types';

interface SealedConnection {
  readonly id: string;
  readonly workspaceId: string;
  readonly type: ChannelType;
  readonly name: string;
  readonly status: string;
  readonly config: ChannelConfig;
  readonly secrets: string | null;
}

/** Seals a connection's secrets into one AES-256-GCM blob and opens it again. Nothing else sees them. */
@Injectable()
export class ChannelSecretsService {
  constructor(private readonly box: SecretBox) {}

  seal(secrets: ChannelSecrets): string {
    const present = Object.fromEntries(
      Object.entries(secrets).filter(([, v]) => typeof v === 'string' && v.length > 0),
    );
    return this.box.encrypt(JSON.stringify(present));
  }

  open(connection: SealedConnection): OpenedConnection {
    const secrets: ChannelSecrets = connection.secrets ? this.parse(this.box.decrypt(connection.secrets)) : {};
    return {
      id: connection.id,
      workspaceId: connection.workspaceId,
      type: connection.type,
      name: connection.name,
      status: connection.status === 'ACTIVE' ? 'ACTIVE' : ('DISCONNECTED' satisfies ChannelStatus),
      config: connection.config,
      secrets,
    };
  }

  private parse(json: string): ChannelSecrets {
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null) return {};
    const secrets: Record<string, string> = {};
    for (const [key, v] of Object.entries(value)) if (typeof v === 'string') secrets[key] = v;
    return secrets;
  }
}

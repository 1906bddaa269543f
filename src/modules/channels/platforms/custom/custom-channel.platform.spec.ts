import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from 'src/core/config/app-config';
import { OutboundHttp } from 'src/core/http/outbound-http';
import { type DeliveryTarget, PermanentDeliveryError } from '../../channel.types';
import { CustomChannelPlatform, customOutboundBody } from './custom-channel.platform';

function platform(allowPrivate: boolean): CustomChannelPlatform {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'unit-test-secret-0123456789',
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: String(allowPrivate),
  });
  return new CustomChannelPlatform(new OutboundHttp(config));
}

function target(url: string, outboundSecret?: string): DeliveryTarget {
  return {
    connection: {
      id: 'c',
      workspaceId: 'w',
      type: 'CUSTOM',
      name: 'n',
      status: 'ACTIVE',
      config: { outboundUrl: url },
      secrets: outboundSecret ? { outboundSecret } : {},
    },
    recipientId: 'cust-1',
    replyToken: null,
  };
}

describe('Custom Channel outbound', () => {
  it('builds the SPEC §2 body', () => {
    const body = customOutboundBody(
      'r',
      { type: 'TEXT', text: 'hi', imageUrl: null, buttons: [] },
      new Date('2026-11-22T10:00:00Z'),
    );
    expect(body).toBe('{"recipientId":"r","message":{"type":"TEXT","text":"hi"},"sentAt":"2026-11-22T10:00:00.000Z"}');
  });

  it('signs the exact bytes it sends', async () => {
    const received: { raw: string; signature: string | undefined }[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        received.push({ raw, signature: req.headers['x-service-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      await platform(true).send(target(url, 'shh'), { type: 'TEXT', text: 'hello', imageUrl: null, buttons: [] });
      expect(received[0]!.signature).toBe(
        `sha256=${createHmac('sha256', 'shh').update(received[0]!.raw).digest('hex')}`,
      );
    } finally {
      server.close();
    }
  });

  it('refuses private and loopback destinations unless allowed, without retrying', async () => {
    await expect(
      platform(false).send(target('http://127.0.0.1:9/hook'), { type: 'TEXT', text: 'x', imageUrl: null, buttons: [] }),
    ).rejects.toBeInstanceOf(PermanentDeliveryError);
    await expect(
      platform(false).send(target('http://10.1.2.3/hook'), { type: 'TEXT', text: 'x', imageUrl: null, buttons: [] }),
    ).rejects.toThrow(/refused: private address/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loginAdmin } from '../../utils/sessions';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';

/** README.md "Quick start", step by step, on a fresh install (the bootstrap workspace and admin). */
describe('README quick start: a first message answered', () => {
  let t: TestApp;
  let receiver: Server;
  let receiverUrl: string;
  const received: { signature: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    // Step 2's stand-in for the customer's chat backend.
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ signature: req.headers['x-service-signature'] as string | undefined, body });
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`;
    t = await createTestApp();
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('login → connect a Custom Channel → signed message → assigned to the admin → reply delivered', async () => {
    // 1. Log in as the bootstrap admin.
    const admin = await loginAdmin(t);

    // 3. Connect a Custom Channel.
    const channel = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'CUSTOM', displayName: 'Website chat', inboundSecret: 's3cret-inbound', outboundUrl: receiverUrl })
      .expect(201);
    const inboundPath = new URL(channel.body.inboundUrl as string).pathname;
    expect(inboundPath).toBe(`/custom-channel/${channel.body.id}/inbound`);

    // 4. Sign the exact body with the README's openssl pipeline and send it.
    const body = '{"senderId":"customer-42","senderName":"Ada","text":"Hello! Is the espresso machine in stock?"}';
    const sig = execFileSync(
      'bash',
      ['-c', `printf '%s' "$BODY" | openssl dgst -sha256 -hmac 's3cret-inbound' | sed 's/^.* //'`],
      { env: { PATH: '/usr/bin:/bin', BODY: body } },
    )
      .toString()
      .trim();
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    await t.http
      .post(inboundPath)
      .set('content-type', 'application/json')
      .set('x-service-signature', `sha256=${sig}`)
      .send(body)
      .expect(200);

    // A body without senderId names the field.
    const bad = '{"text":"no sender"}';
    const badSig = execFileSync(
      'bash',
      ['-c', `printf '%s' "$BODY" | openssl dgst -sha256 -hmac 's3cret-inbound' | sed 's/^.* //'`],
      {
        env: { PATH: '/usr/bin:/bin', BODY: bad },
      },
    )
      .toString()
      .trim();
    const refused = await t.http
      .post(inboundPath)
      .set('content-type', 'application/json')
      .set('x-service-signature', `sha256=${badSig}`)
      .send(bad)
      .expect(400);
    expect(refused.body.message).toBe('senderId is required');

    // 5. In the inbox, assigned to the admin without any presence call.
    await t.drain();
    const conversation = await eventually(async () => {
      const list = await t.http.get('/conversations').set(admin.headers).expect(200);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0].assigneeId).toBe(admin.userId);
      return list.body.data[0] as { id: string };
    });
    const detail = await t.http.get(`/conversations/${conversation.id}`).set(admin.headers).expect(200);
    expect(detail.body.messages.map((m: { text: string }) => m.text)).toContain(
      'Hello! Is the espresso machine in stock?',
    );

    // 6. Reply: the stand-in receives the signed message.
    await t.http
      .post(`/conversations/${conversation.id}/messages`)
      .set(admin.headers)
      .send({ text: 'Hi Ada, yes: 3 in stock.' })
      .expect(201);
    await t.drain();
    await eventually(async () => {
      expect(received).toHaveLength(1);
    });
    expect(JSON.parse(received[0]!.body)).toMatchObject({
      recipientId: 'customer-42',
      message: { type: 'TEXT', text: 'Hi Ada, yes: 3 in stock.' },
    });
  });
});

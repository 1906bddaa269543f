import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CustomInboundMessageDto } from '../../dto/custom-inbound.dto';
import { plainCustomMessage } from './custom-channel.adapter';

/** What SPEC §2 / the DTO accept: the lean ack path must never accept more (it may decline more). */
async function dtoAccepts(body: Record<string, unknown>): Promise<boolean> {
  const dto = plainToInstance(CustomInboundMessageDto, body);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  const content = Boolean(dto.text) || (dto.attachments?.length ?? 0) > 0 || dto.postbackPayload !== undefined;
  return errors.length === 0 && content;
}

const ACCEPTED: Record<string, unknown>[] = [
  { senderId: 'c-1', text: 'hi' },
  { senderId: 'c-1', senderName: 'Ann', text: 'hi', messageId: 'm-1', timestamp: 1_700_000_000 },
  { senderId: 'c-1', postbackPayload: '' },
  { senderId: 'c-1', text: '', postbackPayload: 'BUY' },
  { senderId: 'c-1', text: 'a\u0000b' },
  { senderId: 'x'.repeat(256), text: 'y'.repeat(20_000), timestamp: 0 },
];

const DECLINED: unknown[] = [
  null,
  'text',
  [{ senderId: 'c-1', text: 'hi' }],
  {},
  { text: 'no sender' },
  { senderId: '', text: 'hi' },
  { senderId: 'c-1' },
  { senderId: 'c-1', text: '' },
  { senderId: 'c-1', text: 'x', unknown: 1 },
  { senderId: 'c-1', text: 'x', senderName: null },
  { senderId: 1, text: 'x' },
  { senderId: 'c-1', text: 'x', timestamp: -1 },
  { senderId: 'c-1', text: 'x', timestamp: '1700000000' },
  { senderId: 'c-1', text: 'x', messageId: '' },
  { senderId: 'x'.repeat(257), text: 'hi' },
  { senderId: 'c-1', text: 'y'.repeat(20_001) },
  { senderId: 'c-1', text: 'x', attachments: [{ type: 'image', url: 'https://example.com/a.jpg' }] },
  JSON.parse('{"senderId":"c-1","text":"x","__proto__":{"admin":true}}'),
  Object.assign(Object.create({ inherited: 1 }), { senderId: 'c-1', text: 'x' }),
];

describe('plainCustomMessage (the Custom Channel ack fast path, issue 16)', () => {
  it('accepts ordinary messages, which the DTO accepts too', async () => {
    for (const body of ACCEPTED) {
      expect(plainCustomMessage(body)).toBe(body);
      expect(await dtoAccepts(body)).toBe(true);
    }
  });

  it('declines everything it is not sure about (the controller then answers)', () => {
    for (const body of DECLINED) expect(plainCustomMessage(body)).toBeNull();
  });

  it('never accepts a body the DTO refuses (generated bodies)', async () => {
    const values = [undefined, null, '', 'x', 'x'.repeat(300), 0, -1, 1.5, Number.NaN, true, [], {}];
    const keys = ['senderId', 'senderName', 'text', 'postbackPayload', 'timestamp', 'messageId', 'other'];
    let accepted = 0;
    for (let seed = 0; seed < 3000; seed++) {
      const body: Record<string, unknown> = {};
      let r = seed + 1;
      for (const key of keys) {
        r = (Math.imul(r, 1103515245) + 12345) >>> 0;
        const pick = (r >>> 8) % (values.length * 2); // half of the time: absent
        if (key === 'other' && (r >>> 4) % 8 !== 0) continue;
        if (pick < values.length && values[pick] !== undefined) body[key] = values[pick];
      }
      if (plainCustomMessage(body)) {
        accepted++;
        expect({ body, accepted: await dtoAccepts(body) }).toEqual({ body, accepted: true });
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});

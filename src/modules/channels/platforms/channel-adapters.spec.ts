import { describe, expect, it } from '@jest/globals';
import { AppException } from 'src/core/errors/app.exception';
import type { ChannelType } from '../channel.types';
import type { ChannelAdapter } from './channel-adapter';
import { ChannelAdapters } from './channel-adapters';

/** A stand-in adapter: the registry only reads `types` and `webhook`. */
function adapter(webhook: string, types: ChannelType[]): ChannelAdapter {
  const unused = (): never => {
    throw new Error('not used');
  };
  return {
    types,
    webhook,
    usesReplyToken: false,
    inboundUrl: unused,
    receive: unused,
    normalize: unused,
    send: unused,
    prepareConnection: unused,
  };
}

const ALL = [
  adapter('meta', ['MESSENGER', 'INSTAGRAM', 'WHATSAPP']),
  adapter('telegram', ['TELEGRAM']),
  adapter('line', ['LINE']),
  adapter('custom', ['CUSTOM']),
];

describe('ChannelAdapters (the registry by channel type and webhook name)', () => {
  it('finds the adapter of every type and of every webhook name', () => {
    const registry = new ChannelAdapters(ALL);
    expect(registry.forType('INSTAGRAM')).toBe(ALL[0]);
    expect(registry.forType('LINE').webhook).toBe('line');
    expect(registry.forWebhook('telegram').types).toEqual(['TELEGRAM']);
  });

  it('answers 404 for a webhook name no adapter has', () => {
    const registry = new ChannelAdapters(ALL);
    let thrown: unknown = null;
    try {
      registry.forWebhook('slack');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppException);
    expect((thrown as AppException).status).toBe(404);
  });

  it('refuses to start when a channel type has no adapter, or two adapters claim one', () => {
    expect(() => new ChannelAdapters(ALL.slice(0, 3))).toThrow(/No channel adapter for CUSTOM/);
    expect(() => new ChannelAdapters([...ALL, adapter('line2', ['LINE'])])).toThrow(/Two channel adapters serve LINE/);
    expect(() => new ChannelAdapters([...ALL, adapter('line', [])])).toThrow(/Two channel adapters receive "line"/);
  });
});

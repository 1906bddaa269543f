import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { OutboundUrlService, isPrivateAddress } from './outbound-url.service';

const service = (allow: boolean) => new OutboundUrlService({ outbound: { allowPrivateNetworks: allow } } as AppConfig);

describe('outbound URL guard', () => {
  it('classifies private and public addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isPrivateAddress(ip)).toBe(true);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPrivateAddress(ip)).toBe(false);
  });

  it('refuses non-http URLs and private destinations unless allowed', async () => {
    await expect(service(false).assertAllowed('ftp://example.com/x', 'url')).rejects.toBeInstanceOf(AppException);
    await expect(service(false).assertAllowed('not a url', 'url')).rejects.toMatchObject({
      details: [{ field: 'url', message: 'must be an http(s) URL' }],
    });
    await expect(service(false).assertAllowed('http://127.0.0.1:8080/hook', 'url')).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(service(false).assertAllowed('http://[::1]/hook', 'url')).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(service(false).assertAllowed('http://localhost/hook', 'url')).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(service(true).assertAllowed('http://127.0.0.1:8080/hook', 'url')).resolves.toBeInstanceOf(URL);
    await expect(service(false).assertAllowed('https://8.8.8.8/hook', 'url')).resolves.toBeInstanceOf(URL);
  });
});

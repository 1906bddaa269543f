import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { isBlockedAddress } from './outbound-http';

/** Loopback, private, link-local, CGNAT, multicast, reserved, and IPv6 forms embedding those (see outbound-http.ts). */
export function isPrivateAddress(address: string): boolean {
  return isBlockedAddress(address);
}

/**
 * Outbound URLs (webhooks, Custom Channel, website sync) must be http(s) and, unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS, must not resolve to loopback or private networks (SSRF guard).
 */
@Injectable()
export class OutboundUrlService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Syntax only (for DTO-time checks): http(s) with a host. Throws 400 naming `field`. */
  assertHttpUrl(value: string, field: string): URL {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw AppException.field(field, 'must be an http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw AppException.field(field, 'must be an http(s) URL');
    return url;
  }

  /** Syntax plus destination: resolves the host and refuses private addresses unless allowed. */
  async assertAllowed(value: string, field: string): Promise<URL> {
    const url = this.assertHttpUrl(value, field);
    if (this.config.outbound.allowPrivateNetworks) return url;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
    if (addresses.length === 0) throw AppException.field(field, 'host does not resolve');
    if (addresses.some(isPrivateAddress))
      throw AppException.field(field, 'must not point to a private or loopback address');
    return url;
  }
}

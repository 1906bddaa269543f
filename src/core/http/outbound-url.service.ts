import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? PRIVATE.check(mapped[1]!, 'ipv4') : PRIVATE.check(address, 'ipv6');
  }
  return true;
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

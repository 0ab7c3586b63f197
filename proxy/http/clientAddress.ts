/**
 * Who sent a request, for the per-address budget of invalid tokens. The socket's peer, unless that
 * peer is a proxy named in TRUSTED_PROXIES: then X-Forwarded-For is read from the right, skipping
 * the trusted hops, and the first address no trusted proxy stands for is the client's. Entries a
 * client wrote itself sit further left and are never reached while a trusted hop vouches for the
 * one to their right (the rule of nginx's `real_ip_recursive on`).
 */
import type http from 'node:http';
import { isIP, type BlockList } from 'node:net';

const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket shows IPv4) as plain IPv4. */
function plain(address: string): string {
  return mappedIpv4.exec(address)?.[1] ?? address;
}

function isTrusted(address: string, trusted: BlockList): boolean {
  const version = isIP(address);
  return version !== 0 && trusted.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** The client's address: the peer's, or what the trusted proxies in front of it forwarded. */
export function clientAddressOf(request: http.IncomingMessage, trusted: BlockList | undefined): string {
  const peer = plain(request.socket.remoteAddress ?? 'unknown');
  if (trusted === undefined || !isTrusted(peer, trusted)) return peer;
  const forwarded = request.headers['x-forwarded-for'];
  if (forwarded === undefined) return peer;
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
  let client = peer;
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = plain((hops[index] as string).trim());
    // Garbage where an address should be: the last address vouched for is as far as the chain holds.
    if (isIP(hop) === 0) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return client;
}

/**
 * The key an address is counted under: an IPv4 address as it is, an IPv6 address by its /64, the
 * smallest block one subscriber is usually given, so that stepping through one's own block does
 * not make a fresh budget (or a fresh counter in memory) per address.
 */
export function addressBucketOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: Math.max(0, missing) }, () => '0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

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
/** An IPv4 address with a port (`1.2.3.4:5678`), as some load balancers forward it. */
const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
/** An IPv6 address in brackets, with or without a port (`[2001:db8::1]:443`, RFC 7239 §6's form). */
const bracketedIpv6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/i;
/** X-Forwarded-For entries read, from the right: more hops than this are no chain of trusted proxies. */
export const maxForwardedHops = 16;

/**
 * An address as written by a socket or a load balancer, plain: an IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`, how a dual-stack socket shows IPv4) as IPv4, and without a port or brackets.
 */
function plain(address: string): string {
  const withoutPort = ipv4WithPort.exec(address)?.[1] ?? bracketedIpv6.exec(address)?.[1] ?? address;
  return mappedIpv4.exec(withoutPort)?.[1] ?? withoutPort;
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
  const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  let client = peer;
  // From the right, one entry at a time: a long header costs no more than maxForwardedHops entries.
  let end = list.length;
  for (let hop = 0; hop < maxForwardedHops && end > 0; hop++) {
    const comma = list.lastIndexOf(',', end - 1);
    const entry = plain(list.slice(comma + 1, end).trim());
    end = comma;
    // Garbage where an address should be: the last address vouched for is as far as the chain holds.
    if (isIP(entry) === 0) break;
    client = entry;
    if (!isTrusted(entry, trusted)) break;
  }
  return client;
}

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail counts as the last two). */
function ipv6Groups(address: string): number[] {
  const parseHalf = (half: string): number[] =>
    half === ''
      ? []
      : half.split(':').flatMap((group) => {
          if (!group.includes('.')) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const headGroups = parseHalf(head);
  const tailGroups = tail === undefined ? [] : parseHalf(tail);
  return [...headGroups, ...Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => 0), ...tailGroups];
}

/** RFC 6052's well-known NAT64 prefix, 64:ff9b::/96, as its first six groups. */
const nat64Prefix = [0x64, 0xff9b, 0, 0, 0, 0];

/**
 * The key an address is counted under: an IPv4 address as it is; an IPv6 address by its /64, the
 * smallest block one subscriber is usually given, so that stepping through one's own block does
 * not make a fresh budget (or a fresh counter in memory) per address, or by its /48 when asked;
 * an address behind NAT64 by the IPv4 address it stands for, as each such client is one.
 */
export function addressBucketOf(address: string, ipv6Prefix: 48 | 64 = 64): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (nat64Prefix.every((group, index) => groups[index] === group)) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, ipv6Prefix / 16)
    .map((group) => group.toString(16))
    .join(':')}::/${ipv6Prefix}`;
}

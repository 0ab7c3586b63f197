/**
 * clientAddress.ts: the client's address is the peer's unless the peer is a trusted proxy; then
 * X-Forwarded-For is read from the right, and what a client wrote itself never counts.
 */
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../proxy/config/config.ts';
import { addressBucketOf, clientAddressOf, maxForwardedHops } from '../../proxy/auth/clientAddress.ts';

function request(peer: string, forwardedFor?: string): http.IncomingMessage {
  return { socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } } as unknown as http.IncomingMessage;
}

const trusted = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1' }).limits.trustedProxies;

describe('the client address', () => {
  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf(request('203.0.113.7', '198.51.100.1'), undefined)).toBe('203.0.113.7');
    expect(clientAddressOf(request('::ffff:203.0.113.7'), undefined)).toBe('203.0.113.7');
  });

  it('is the peer when the peer is not a trusted proxy', () => {
    expect(clientAddressOf(request('203.0.113.7', '198.51.100.1'), trusted)).toBe('203.0.113.7');
  });

  it('behind trusted proxies, is the rightmost address none of them stands for', () => {
    expect(clientAddressOf(request('10.0.0.2', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    // The client wrote "1.2.3.4" itself; the trusted 10.1.1.1 vouches only for 198.51.100.1.
    expect(clientAddressOf(request('10.0.0.2', '1.2.3.4, 198.51.100.1, 10.1.1.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddressOf(request('::ffff:10.0.0.2', '198.51.100.1'), trusted)).toBe('198.51.100.1');
    expect(clientAddressOf(request('::1', '2001:db8::5'), trusted)).toBe('2001:db8::5');
  });

  it('stops at garbage in X-Forwarded-For, at the last address a trusted proxy vouched for', () => {
    expect(clientAddressOf(request('10.0.0.2', 'not-an-address'), trusted)).toBe('10.0.0.2');
    expect(clientAddressOf(request('10.0.0.2', '198.51.100.9, <script>, 10.0.0.3'), trusted)).toBe('10.0.0.3');
  });

  it('takes the port off an address a load balancer forwards with one, and the brackets off IPv6', () => {
    expect(clientAddressOf(request('10.0.0.2', '198.51.100.1:5678'), trusted)).toBe('198.51.100.1');
    expect(clientAddressOf(request('10.0.0.2', '[2001:db8::1]:443'), trusted)).toBe('2001:db8::1');
    expect(clientAddressOf(request('10.0.0.2', '[2001:db8::1]'), trusted)).toBe('2001:db8::1');
    expect(clientAddressOf(request('10.0.0.2', '198.51.100.1:5678, 10.0.0.3:80'), trusted)).toBe('198.51.100.1');
  });

  it(`reads at most ${maxForwardedHops} entries of X-Forwarded-For, from the right`, () => {
    const hops = (count: number): string => Array.from({ length: count }, (_, index) => `10.0.${index >> 8}.${index & 0xff}`).join(', ');
    expect(clientAddressOf(request('10.0.0.2', `198.51.100.1, ${hops(maxForwardedHops - 1)}`), trusted)).toBe('198.51.100.1');
    // A chain longer than that stops at the last trusted hop read: the client's own entries are never reached.
    expect(clientAddressOf(request('10.0.0.2', `198.51.100.1, ${hops(2000)}`), trusted)).toBe(
      `10.0.${(2000 - maxForwardedHops) >> 8}.${(2000 - maxForwardedHops) & 0xff}`,
    );
  });

  it('is the peer when a trusted proxy sends no X-Forwarded-For', () => {
    expect(clientAddressOf(request('10.0.0.2'), trusted)).toBe('10.0.0.2');
  });
});

describe('the counted bucket of an address', () => {
  it('is an IPv4 address itself, and an IPv6 address its /64', () => {
    expect(addressBucketOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucketOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucketOf('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressBucketOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucketOf('::1')).toBe('0:0:0:0::/64');
  });

  it('is an IPv6 address its /48 when asked', () => {
    expect(addressBucketOf('2001:db8:1:2:aaaa::1', 48)).toBe('2001:db8:1::/48');
  });

  it('behind NAT64 (64:ff9b::/96), is the IPv4 address the client has, in any writing of it', () => {
    for (const address of ['64:ff9b::c000:221', '64:FF9B::C000:221', '64:ff9b:0:0:0:0:c000:221', '64:ff9b::192.0.2.33']) {
      expect(addressBucketOf(address)).toBe('192.0.2.33');
    }
    expect(addressBucketOf('64:ff9b:1::c000:221')).toBe('64:ff9b:1:0::/64');
  });
});

describe('the budget settings', () => {
  it('read requests per window, in seconds or with a unit, or off', () => {
    expect(loadConfig({ RATE_LIMIT: '600/60' }).limits.perToken).toEqual({ points: 600, seconds: 60 });
    expect(loadConfig({ RATE_LIMIT: '20000/1h' }).limits.perToken).toEqual({ points: 20000, seconds: 3600 });
    expect(loadConfig({ RATE_LIMIT: 'off' }).limits.perToken).toBeUndefined();
    expect(loadConfig({}).limits.perToken).toBeUndefined();
    expect(loadConfig({}).limits.authFailures).toEqual({ points: 100, seconds: 60 });
    expect(loadConfig({ AUTH_FAILURE_LIMIT: 'off' }).limits.authFailures).toBeUndefined();
  });

  it('refuse a malformed budget or address list, naming the variable and the form', () => {
    expect(() => loadConfig({ RATE_LIMIT: '600 per minute' })).toThrow(/RATE_LIMIT must be <requests>\/<window>.*\(got "600 per minute"\)/);
    expect(() => loadConfig({ AUTH_FAILURE_LIMIT: '0/60' })).toThrow(/AUTH_FAILURE_LIMIT must allow at least 1/);
    expect(() => loadConfig({ RATE_LIMIT: '10/2d' })).toThrow(/RATE_LIMIT must be/);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/40' })).toThrow(/TRUSTED_PROXIES must be IP addresses or CIDR blocks/);
  });
});

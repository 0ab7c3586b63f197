/**
 * The shapes of the settings' values (config.ts reads the environment with them): ports, key lists,
 * budgets, address lists. Each refusal says what the value must look like.
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/** A comma-separated list, items trimmed, empty items dropped. */
export const commaList = z.string().transform((text) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

export const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a whole number from 0 to 65535')
  .transform(Number)
  .refine((value) => value <= 65535, 'must be a whole number from 0 to 65535');

/** A token a client may present: RFC 6750's b64token characters, long enough not to be guessed. */
export const apiKeyPattern = /^[A-Za-z0-9\-._~+/]{16,}=*$/;

export const apiKeys = commaList
  .refine((keys) => keys.every((key) => key.length >= 16), 'must hold keys of at least 16 characters each, separated by commas')
  .refine((keys) => keys.every((key) => apiKeyPattern.test(key)), 'must hold keys of letters, digits and - . _ ~ + / only');

export const nonEmpty = z.string().trim().min(1, 'must not be empty');

/** A budget: at most `points` requests (or failures) per `seconds`. */
export interface Budget {
  readonly points: number;
  readonly seconds: number;
}

const windowUnits: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600 };
/** `<requests>/<window>`, the window in seconds or with a unit (`600/60`, `600/1m`, `20000/1h`), or `off`. */
export const budget = z
  .string()
  .trim()
  .regex(/^(?:off|\d{1,9}\/\d{1,6}[smh]?)$/i, 'must be <requests>/<window>, the window in seconds or with s, m or h (e.g. 600/60 or 20000/1h), or off')
  .transform((text): Budget | undefined => {
    if (text.toLowerCase() === 'off') return undefined;
    const [, points = '', window = '', unit = ''] = /^(\d+)\/(\d+)([smh]?)$/i.exec(text) ?? [];
    return { points: Number(points), seconds: Number(window) * (windowUnits[unit.toLowerCase()] ?? 1) };
  })
  .refine(
    (value) => value === undefined || (value.points >= 1 && value.seconds >= 1 && value.seconds <= 86_400),
    'must allow at least 1 request in a window of 1 s to 24 h',
  );

/** Addresses and CIDR blocks of the proxies in front (`10.0.0.0/8, ::1`): their X-Forwarded-For is believed. */
export const addressList = commaList.refine(
  (items) => items.every((item) => parseAddressBlock(item) !== undefined),
  'must be IP addresses or CIDR blocks separated by commas, e.g. 10.0.0.0/8, 192.168.1.10, ::1',
);

/** `10.0.0.0/8` or `::1` as a BlockList entry; undefined when it is neither. */
function parseAddressBlock(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText] = text.split('/');
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The proxies whose X-Forwarded-For is believed, as a BlockList; empty when none is trusted. */
export function trustedProxyList(items: readonly string[]): BlockList {
  const list = new BlockList();
  for (const item of items) {
    const block = parseAddressBlock(item);
    if (block) list.addSubnet(block.address, block.prefix, block.family);
  }
  return list;
}

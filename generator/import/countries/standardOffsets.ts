/**
 * A time zone's standard UTC offset, computed from the IANA tz database (tzdata) as compiled into
 * moment-timezone's data (its `data/packed/latest.json`, e.g. 2026f). Not Node's own Intl: Node 20's ICU
 * carries tzdata 2025c (`process.versions.tz`) and receives no new one, so it still has British
 * Columbia, Alberta, the Northwest Territories and Manitoba changing clocks, which they stopped in
 * 2026 (tzdata 2026b–2026e).
 *
 * The standard offset is the smallest UTC offset in force at any time of the reference year, the
 * first whole year after the tzdata release (2027 for 2026f): the offsets of that year are
 * tzdata's rules as they stand today, and daylight saving time is never negative. That is the
 * convention of tzdata's rearguard form, CLDR and ICU. Europe/Dublin is therefore +00:00 (GMT, in
 * force in winter), where tzdata's main form calls Irish Standard Time (+01:00, in force in summer)
 * standard and winter GMT a negative DST, as Irish law words it.
 */
import { createRequire } from 'node:module';
import moment from 'moment-timezone';
import { ImportError } from '../shared/importError.ts';

/**
 * moment-timezone's packed tzdata, read from its own file rather than through `moment.tz`: that
 * registry lives on the one shared `moment`, and date-holidays' older moment-timezone (0.5, tzdata
 * 2025b) loads its data into it when date-holidays is imported, replacing every zone.
 */
const packed = createRequire(import.meta.url)('moment-timezone/data/packed/latest.json') as {
  readonly version: string;
  readonly zones: readonly string[];
  readonly links: readonly string[];
};

/** The tzdata release the offsets come from, `2026f`. */
export const tzdataVersion: string = packed.version;

export type TzdataZone = moment.MomentZone;
/** moment-timezone's Zone is a constructor; its typings declare it as a plain call. */
const Zone = moment.tz.Zone as unknown as new (packedZone: string) => TzdataZone;

const packedByName = new Map<string, string>();
for (const zone of packed.zones) packedByName.set(zone.slice(0, zone.indexOf('|')), zone);
for (const link of packed.links) {
  const [target = '', alias = ''] = link.split('|');
  const zone = packedByName.get(target);
  if (zone !== undefined) packedByName.set(alias, `${alias}${zone.slice(zone.indexOf('|'))}`);
}
const unpacked = new Map<string, TzdataZone>();

/** A zone (or link) of this tzdata release, unpacked once; null when tzdata has no such name. */
export function tzdataZone(name: string): TzdataZone | null {
  let zone = unpacked.get(name);
  if (zone === undefined) {
    const packedZone = packedByName.get(name);
    if (packedZone === undefined) return null;
    zone = new Zone(packedZone);
    unpacked.set(name, zone);
  }
  return zone;
}

/** The year whose offsets define each zone's standard offset: the year after the tzdata release. */
export function standardOffsetYear(release: string): number {
  const year = /^(\d{4})[a-z]$/.exec(release)?.[1];
  if (year === undefined) throw new ImportError([`tzdata release "${release}" is not like 2026f`]);
  return Number(year) + 1;
}

/** `-420` → `-07:00`, `345` → `+05:45`. */
export function formatOffset(minutesEast: number): string {
  const sign = minutesEast < 0 ? '-' : '+';
  const minutes = Math.abs(minutesEast);
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The zone's standard offset as `+03:00`, or undefined when tzdata has no such zone. Exact, not
 * sampled: every offset interval of moment-timezone's data that overlaps the reference year counts.
 */
export function standardOffset(zoneName: string): string | undefined {
  const zone = tzdataZone(zoneName);
  if (zone === null) return undefined;
  const year = standardOffsetYear(tzdataVersion);
  const start = Date.UTC(year, 0, 1);
  const end = Date.UTC(year + 1, 0, 1);
  // offsets[i] is in force from untils[i - 1] up to untils[i], in minutes west of UTC.
  const inForce = zone.offsets.filter((_, index) => {
    const from = index === 0 ? -Infinity : (zone.untils[index - 1] ?? Infinity);
    const until = zone.untils[index] ?? Infinity;
    return from < end && until > start;
  });
  if (inForce.length === 0) throw new ImportError([`moment-timezone has no offset of ${zoneName} in ${year}`]);
  const minutesEast = -Math.max(...inForce);
  if (!Number.isInteger(minutesEast)) throw new ImportError([`${zoneName}: offset ${minutesEast} minutes is not whole`]);
  return formatOffset(minutesEast);
}

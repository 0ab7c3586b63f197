/**
 * Civil days and local times in an IANA time zone, written the way holiday records carry them:
 * `2024-04-10 00:00:00 GMT+03:00`, the wall-clock time followed by the UTC offset in force at that
 * instant (summer time included). Offsets come from tzdata as moment-timezone carries it (2026f),
 * not from Node's own ICU data, which Node 20 keeps at 2025c (standardOffsets.ts says what changed
 * since: Morocco, Cuba, western Canada); nothing here reads a file or the clock.
 *
 * A day is `YYYY-MM-DD` in the proleptic Gregorian calendar, with no time zone of its own.
 */

import { formatOffset, tzdataVersion, tzdataZone, type TzdataZone } from '../countries/standardOffsets.ts';

/** `YYYY-MM-DD`. */
export type CivilDay = string;
/** `HH:MM` on a 24-hour clock. */
export type WallTime = string;

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timePattern = /^([01]\d|2[0-3]):([0-5]\d)$/;
const minute = 60_000;
const day = 24 * 60 * minute;

function parseDay(civilDay: CivilDay): number {
  const match = dayPattern.exec(civilDay);
  if (!match) throw new RangeError(`not a day (YYYY-MM-DD): ${civilDay}`);
  const [, year, month, date] = match.map(Number) as [number, number, number, number];
  const epochMs = Date.UTC(year, month - 1, date);
  if (new Date(epochMs).toISOString().slice(0, 10) !== civilDay) throw new RangeError(`no such day: ${civilDay}`);
  return epochMs;
}

/** The day `count` days after (or before, when negative) `civilDay`. */
export function addDays(civilDay: CivilDay, count: number): CivilDay {
  return new Date(parseDay(civilDay) + count * day).toISOString().slice(0, 10);
}

/** 0 for Sunday … 6 for Saturday, as `Date.prototype.getUTCDay`. */
export function weekdayOf(civilDay: CivilDay): number {
  return new Date(parseDay(civilDay)).getUTCDay();
}

/** What a clock in the zone shows at an instant, and the offset in force then. */
interface LocalReading {
  /** The wall-clock time as if it were UTC, in milliseconds: comparable with `Date.UTC(...)`. */
  readonly wallMs: number;
  /** `+03:00`, `-05:00`, `+05:45`. */
  readonly offset: string;
}

/** One zone's tzdata, looked up once: an unknown zone is an error, never UTC. */
function zoneFor(timeZone: string): TzdataZone {
  const zone = tzdataZone(timeZone);
  if (zone === null) throw new RangeError(`${timeZone}: not a time zone of tzdata ${tzdataVersion}`);
  return zone;
}

function readClock(timeZone: string, epochMs: number): LocalReading {
  // moment-timezone gives minutes west of UTC; an offset with seconds (local mean time, long
  // before any date this serves) cannot be written as ±HH:MM and is refused.
  const minutesEast = -zoneFor(timeZone).utcOffset(epochMs);
  if (!Number.isInteger(minutesEast)) throw new RangeError(`${timeZone}: the UTC offset at ${new Date(epochMs).toISOString()} is not whole minutes`);
  return { wallMs: epochMs + minutesEast * minute, offset: formatOffset(minutesEast) };
}

function offsetMs(offset: string): number {
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))) * minute;
}

/**
 * The first instant at which the zone's clock shows `wallMs` or later on that wall-clock day.
 * Usually that is the instant the clock shows exactly `wallMs`; when the time is shown twice (the
 * hour repeated when summer time ends) it is the earlier one; when it is never shown (skipped when
 * summer time starts, as midnight is in zones that switch at 00:00) it is the instant of the switch,
 * whose wall time is later than asked.
 */
function firstInstantAtOrAfter(timeZone: string, wallMs: number): number {
  // Offsets in force in the day around that wall time: a zone changes offset at most once a day.
  const offsets = new Set([readClock(timeZone, wallMs - day).offset, readClock(timeZone, wallMs + day).offset]);
  const exact = [...offsets]
    .map((offset) => wallMs - offsetMs(offset))
    .filter((epochMs) => readClock(timeZone, epochMs).wallMs === wallMs)
    .sort((a, b) => a - b);
  if (exact[0] !== undefined) return exact[0];

  // Skipped: the clock jumps over wallMs. Before the jump it shows less, after it more; find the
  // first second after it by bisection (transitions fall on whole seconds).
  const candidates = [...offsets].map((offset) => wallMs - offsetMs(offset));
  let before = Math.min(...candidates);
  let after = Math.max(...candidates);
  if (readClock(timeZone, before).wallMs >= wallMs || readClock(timeZone, after).wallMs < wallMs) {
    throw new RangeError(`${timeZone}: cannot place the local time ${new Date(wallMs).toISOString()}`);
  }
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000;
    if (readClock(timeZone, middle).wallMs >= wallMs) after = middle;
    else before = middle;
  }
  return after;
}

/** `2024-04-10 00:00:00 GMT+03:00`: the wall-clock time at the instant and the offset in force. */
export function formatLocalDateTime(timeZone: string, epochMs: number): string {
  const { wallMs, offset } = readClock(timeZone, epochMs);
  return `${new Date(wallMs).toISOString().slice(0, 19).replace('T', ' ')} GMT${offset}`;
}

/** The instant a local day begins: its midnight, or its first instant when midnight is skipped. */
export function startOfLocalDay(timeZone: string, civilDay: CivilDay): number {
  return firstInstantAtOrAfter(timeZone, parseDay(civilDay));
}

/** The instant the zone's clock shows `time` on `civilDay` (the earlier one if shown twice). */
export function localInstant(timeZone: string, civilDay: CivilDay, time: WallTime): number {
  const match = timePattern.exec(time);
  if (!match) throw new RangeError(`not a time (HH:MM): ${time}`);
  return firstInstantAtOrAfter(timeZone, parseDay(civilDay) + (Number(match[1]) * 60 + Number(match[2])) * minute);
}

export interface LocalSpan {
  readonly startDate: string;
  readonly endDate: string;
}

/**
 * A whole local day, from its first instant to the next day's, both written with their own offset
 * (a day on which summer time starts begins at +01:00 and ends at +02:00). With `from`, the span
 * starts at that local time instead (a half day from 13:00) and still ends at the next day's start.
 */
export function localDaySpan(timeZone: string, civilDay: CivilDay, from?: WallTime): LocalSpan {
  const nextDay = addDays(civilDay, 1);
  // Fast path for all but the days around a change of offset (two readings instead of about ten;
  // the import writes some 180,000 days): both bounds lie between a day before and two days after
  // the day taken as UTC, so when the offset is the same at both ends it is the offset at both
  // bounds, each of which exists once (no zone changes its offset twice within three days).
  const dayMs = parseDay(civilDay);
  const offset = readClock(timeZone, dayMs - day).offset;
  if (readClock(timeZone, dayMs + 2 * day).offset === offset) {
    if (from !== undefined && !timePattern.test(from)) throw new RangeError(`not a time (HH:MM): ${from}`);
    return { startDate: `${civilDay} ${from ?? '00:00'}:00 GMT${offset}`, endDate: `${nextDay} 00:00:00 GMT${offset}` };
  }
  const start = from === undefined ? startOfLocalDay(timeZone, civilDay) : localInstant(timeZone, civilDay, from);
  return {
    startDate: formatLocalDateTime(timeZone, start),
    endDate: formatLocalDateTime(timeZone, startOfLocalDay(timeZone, nextDay)),
  };
}

/**
 * Hours between two instants as the zone's clock counts them, so that a span of whole days is a
 * multiple of 24 even across a summer-time switch (90 hours from 18:00 is 90 wall-clock hours).
 */
export function wallClockHours(timeZone: string, startMs: number, endMs: number): number {
  return (readClock(timeZone, endMs).wallMs - readClock(timeZone, startMs).wallMs) / (60 * minute);
}

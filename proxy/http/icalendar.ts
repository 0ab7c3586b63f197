/**
 * A work calendar (contract/workCalendar.ts) as iCalendar (RFC 5545): one all-day VEVENT per day,
 * for a calendar app to subscribe to. The text is made from the JSON body the generator wrote, so
 * both say the same; the same body and build always give the same bytes.
 *
 * - UID: the calendar, the date, the type, the scope and the day's place among its kind that date
 *   (`20260106-public-regional-1.de-by@reference-data`): stable from build to build and the same in
 *   every language, so that an app updates an event rather than adding another.
 * - DTSTAMP: the build's time (the data's, not the request's), so that the body and its ETag are stable.
 * - TRANSP:TRANSPARENT: a day off shows as free time, as published holiday calendars do.
 * - CATEGORIES: the day's type (`public`, `halfDay` …); DESCRIPTION says it in words, in English.
 */
import type { WorkCalendar, WorkCalendarDay, WorkDayType } from '../../contract/workCalendar.ts';

export const calendarType = 'text/calendar; charset=utf-8';

const typeWords: Record<WorkDayType, string> = {
  public: 'Public holiday',
  bank: 'Bank holiday',
  halfDay: 'Half day',
  optional: 'Day off for some workers',
  workday: 'Working day',
};

/** TEXT values (§3.3.11): backslash, semicolon, comma and line breaks escaped. */
function escapeText(text: string): string {
  return text.replace(/[\\;,]/g, (character) => `\\${character}`).replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * A content line folded at 75 octets (§3.1): each further line starts with a space. A UTF-8
 * character is never split.
 */
function fold(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line;
  const parts: string[] = [];
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // Back off to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
    while (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
    parts.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
    limit = 74; // the leading space counts
  }
  return parts.join('\r\n ');
}

const compact = (date: string) => date.replaceAll('-', '');

function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** `2026-11-26T17:12:15.000Z` → `20261126T171215Z` (a UTC DATE-TIME, §3.3.5). */
export const utcStamp = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;

function describe(day: WorkCalendarDay, place: string): string {
  const words = [`${typeWords[day.type]}${day.scope === 'regional' ? ` in ${place}` : ''}`];
  if (day.startTime !== undefined) words.push(`from ${day.startTime}`);
  if (day.observedFor !== undefined) words.push(`observed for ${day.observedFor}`);
  if (day.provisional) words.push('provisional: worked out by rule ahead of its announcement');
  return `${words.join('; ')}.`;
}

/**
 * The calendar as RFC 5545 text, CRLF line ends; `builtAt` is the build's ISO time. The text
 * depends on nothing else, so one body has one calendar text (and one ETag).
 */
export function renderICalendar(calendar: WorkCalendar, builtAt: string): string {
  const place = calendar.stateProvinceCode ?? calendar.countryCode;
  const uidSuffix = place.toLowerCase();
  const title = `Work calendar ${place} ${calendar.year}`;
  const stamp = utcStamp(builtAt);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//reference-data//work calendar//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `NAME:${escapeText(title)}`,
    `X-WR-CALNAME:${escapeText(title)}`,
  ];
  const seen = new Map<string, number>();
  for (const day of calendar.days) {
    const kind = `${compact(day.date)}-${day.type}-${day.scope}`;
    const count = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, count);
    lines.push(
      'BEGIN:VEVENT',
      `UID:${kind}-${count}.${uidSuffix}@reference-data`,
      `DTSTAMP:${stamp}`,
      `DTSTART;VALUE=DATE:${compact(day.date)}`,
      `DTEND;VALUE=DATE:${compact(nextDay(day.date))}`,
      `SUMMARY:${escapeText(day.name)}`,
      `DESCRIPTION:${escapeText(describe(day, place))}`,
      `CATEGORIES:${day.type}`,
      'TRANSP:TRANSPARENT',
      ...(day.provisional ? ['STATUS:TENTATIVE'] : ['STATUS:CONFIRMED']),
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

/**
 * A work calendar as iCalendar (`format=ics`): public, without a token. A calendar app subscribes
 * to a URL and cannot send an Authorization header, and a country's holidays are public facts;
 * the JSON answers of the same operation need a token like every lookup. The answer is cacheable
 * by anyone (Cache-Control public), so a CDN or the edge cache serves repeated subscriptions.
 */
import type http from 'node:http';
import { LRUCache } from 'lru-cache';
import { publicCacheControl, publicFileSecurityHeaders } from '../../contract/http.ts';
import { findRoute, formatParam } from '../../contract/routes.ts';
import type { WorkCalendar } from '../../contract/workCalendar.ts';
import { codingOf, encodeResponse } from './compression.ts';
import type { Exchange, Handler } from './exchange.ts';
import { calendarType, renderICalendar, utcStamp } from './icalendar.ts';
import { chooseByAcceptLanguage } from './languageChoice.ts';
import { findTarget } from './lookups.ts';
import { chooseEncoding, codedEtag, matchesIfNoneMatch } from './negotiation.ts';
import { collectParams, noOperation, refuseUnknownParams } from './query.ts';
import { whenReady } from './respond.ts';
import { whenIndexed } from '../store/indexReader.ts';

/** A request for a calendar file: a route that offers `ics`, and `format=ics` in the query (any case). */
export function isCalendarRequest(pathname: string, query: string): boolean {
  if (!/format=ics/i.test(query)) return false;
  const route = findRoute(pathname);
  if (!route?.formats?.includes('ics')) return false;
  const values = collectParams(query).get(formatParam) ?? [];
  return values.length === 1 && values[0]?.trim().toLowerCase() === 'ics';
}

/** A body's calendar: its text and the file name it is offered under. */
interface Rendered {
  readonly text: Buffer;
  readonly fileName: string;
}

/** Each body's calendar, by the body's ETag: 1,000 calendars of a few kilobytes at most. */
const rendered = new LRUCache<string, Rendered>({ max: 1000 });

function render(body: Buffer, builtAt: string): Rendered {
  const calendar = JSON.parse(body.toString('utf8')) as WorkCalendar;
  const fileName = `${(calendar.stateProvinceCode ?? calendar.countryCode).toLowerCase()}-${calendar.year}.ics`;
  return { text: Buffer.from(renderICalendar(calendar, builtAt)), fileName };
}

/**
 * The ETag of a body's calendar: the body's own, marked as another representation and by the
 * build's time, which the text carries (DTSTAMP), so that one tag never names two texts.
 */
const calendarEtag = (etag: string, builtAt: string) => `${etag.slice(0, -1)}-ics${utcStamp(builtAt)}"`;

/**
 * The route and body a calendar request names, found as a lookup finds them (without its token),
 * its query holding no parameter the operation does not take.
 */
function resolveCalendar(exchange: Exchange) {
  const route = findRoute(exchange.pathname);
  if (!route) throw noOperation(exchange.pathname);
  refuseUnknownParams(route, collectParams(exchange.query));
  return findTarget(route, exchange.query, exchange.context.store());
}

/**
 * How long the 429 of an address past its budget of calendars waits before it is sent: a client
 * that asks again at once on each connection is slowed to a request a second per connection,
 * which leaves the workers to the other clients, at the cost of a timer per refusal.
 */
export const anonymousRefusalDelayMs = 1_000;

/**
 * A calendar, counted against its client address's budget (ANONYMOUS_LIMIT), then resolved (again
 * once a shard it needs is fetched: an origin's, see lookups.ts).
 */
export const answerCalendar: Handler = (exchange: Exchange) => {
  try {
    exchange.context.admission.admitAnonymous(exchange.request);
  } catch (error) {
    return new Promise((_, reject) => setTimeout(() => reject(error), anonymousRefusalDelayMs));
  }
  return whenIndexed(() => answerResolved(exchange));
};

function answerResolved(exchange: Exchange): void | Promise<void> {
  const { context, request, method } = exchange;
  const store = context.store();
  const target = request.url ?? exchange.pathname;
  const lookup = context.targets.get(store, target) ?? context.targets.remember(target, resolveCalendar(exchange));
  const answered = lookup.languages ? chooseByAcceptLanguage(request.headers['accept-language'], lookup.languages) : undefined;
  const { file, entry } = answered?.found ?? lookup.found;
  const tag = answered?.tag ?? lookup.language;
  const etag = calendarEtag(entry.etag, store.manifest.builtAt);
  const wanted = method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  // A calendar rendered before needs no body at all: in origin mode, no fetch.
  const kept = (body: Buffer): Rendered => {
    const calendar = render(body, store.manifest.builtAt);
    rendered.set(etag, calendar);
    return calendar;
  };
  const known = rendered.get(etag);
  const body = known === undefined ? (store.cached(entry) ?? store.read(file, entry)) : undefined;
  const made = known ?? whenReady(body as Buffer | Promise<Buffer>, kept);
  return whenReady(made, (calendar) => {
    const headers: http.OutgoingHttpHeaders = {
      ETag: etag,
      'Cache-Control': publicCacheControl,
      'X-Data-Version': store.manifest.dataVersion,
      ...publicFileSecurityHeaders,
      ...exchange.commonHeaders(),
      Vary: context.calendarVary,
      'Content-Disposition': `inline; filename="${calendar.fileName}"`,
      ...(tag === undefined ? {} : { 'Content-Language': tag }),
    };
    if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
      headers.ETag = codedEtag(etag, codingOf(wanted, calendar.text.length));
      return exchange.sendNotModified(headers);
    }
    return whenReady(encodeResponse('', calendar.text, '', etag, wanted), (encoded) => exchange.sendEncoded(calendarType, headers, encoded));
  });
}

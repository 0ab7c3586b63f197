/** /meta: the service's version and the build an authenticated client is talking to, never cached. */
import { wrapSuccess } from '../../contract/envelope.ts';
import { noStore } from '../../contract/http.ts';
import { serviceVersion } from '../../contract/version.ts';
import type { BodyStore } from '../store/store.ts';
import type { Handler } from './exchange.ts';

function describeBuild(store: BodyStore): Record<string, unknown> {
  const { buildId, builtAt, dataVersion, counts, holidayYears } = store.manifest;
  return { version: serviceVersion, buildId, builtAt, dataVersion, counts, holidayYears };
}

/** Any valid token may read it; it counts against the token's budget as a lookup does. */
export const answerMeta: Handler = (exchange) => {
  const store = exchange.context.store();
  exchange.admit();
  exchange.send(
    200,
    { 'Cache-Control': noStore, ...exchange.commonHeaders(), ...exchange.limits },
    wrapSuccess(exchange.ids.globalId, Buffer.from(JSON.stringify(describeBuild(store)))),
  );
};

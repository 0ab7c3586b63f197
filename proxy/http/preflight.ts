/** A CORS preflight (OPTIONS): answered with no token, as negotiation.ts's preflightHeaders says. */
import { allowedMethods } from '../../contract/http.ts';
import type { Handler } from './exchange.ts';
import { preflightHeaders } from './negotiation.ts';

export const answerPreflight: Handler = (exchange) => {
  const { headers } = exchange.request;
  exchange.response.writeHead(204, {
    Allow: allowedMethods,
    ...exchange.commonHeaders(),
    ...preflightHeaders(exchange.context.cors, headers.origin, headers['access-control-request-headers']),
  });
  exchange.response.end();
};

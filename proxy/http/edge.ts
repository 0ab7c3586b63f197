/**
 * The HTTP edge: requests Node's parser lets through that HTTP/1.1 forbids, and requests it refuses.
 * Each malformed request gets exactly one envelope answer, with a status and a message that name
 * the problem, then `Connection: close`: after a framing error nothing later on the connection can
 * be trusted to start where the parser thinks it does (the root of request smuggling).
 *
 * Node 20's llhttp is strict by default: a bare LF or CR ending a line, obsolete line folding,
 * two Content-Length headers, Content-Length with Transfer-Encoding and spaces before a colon are
 * all parse errors, and `insecureHTTPParser: false` keeps them so. It still accepts HTTP/0.9 and
 * HTTP/2.0 request lines, repeated Host headers and bodies on a GET, so refuseMalformed checks
 * those before a request is answered.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { cutEcho } from '../../contract/envelope.ts';
import { ServiceError, type ErrorCode } from '../../contract/errors.ts';
import { allowedMethods } from '../../contract/http.ts';
import { renderRawFailure } from './failure.ts';

const closeConnection = { Connection: 'close' };
/** What Node sends `100 Continue` for itself (the pattern _http_server.js uses). */
const continueExpectation = /(?:^|\W)100-continue(?:$|\W)/i;
/** RFC 9110 §5.6.2: the characters a method name may hold. */
const methodToken = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function methodNotAllowed(method: string): ServiceError {
  return new ServiceError('ERR_METHOD_NOT_ALLOWED', `Method ${cutEcho(method)} is not allowed: this service only reads, use GET.`, { Allow: allowedMethods });
}

/**
 * The response each connection is answering, or answered last. A parse error waits for it, so that
 * its refusal never overtakes an answer still being read from disk; and a parse error inside the
 * body of the request it answers is that request's, which has had its one answer.
 */
const answering = Symbol('answering');
/** A connection with the response it is giving kept on it: set per request, so cheaper than a WeakMap's entry. */
type WatchedSocket = Duplex & { [answering]?: http.ServerResponse };
/** Connections being closed after a refusal: Node reports every later byte as another error. */
const closing = new WeakSet<Duplex>();

/** Notes which response a connection is giving; called for every request. */
export function watchExchange(request: http.IncomingMessage, response: http.ServerResponse): void {
  (request.socket as WatchedSocket)[answering] = response;
}

/** How many Host lines a request has (Node keeps only the first in `headers`). */
function countHosts(rawHeaders: readonly string[]): number {
  let hosts = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
  }
  return hosts;
}

/** Throws the failure of a request Node parsed but HTTP/1.1 (RFC 9112) does not allow. */
export function refuseMalformed(request: http.IncomingMessage): void {
  const method = request.method ?? 'GET';
  if (request.httpVersionMajor !== 1) {
    // HTTP/0.9 (a request line with no version) is not a request line RFC 9112 §3 knows: an invalid
    // request-line, so 400. A version it names but this server does not speak is 505 (RFC 9110 §15.6.6).
    if (request.httpVersionMajor === 0) {
      throw new ServiceError(
        'ERR_REQUEST_MALFORMED',
        `The request line has no HTTP version: write it as "${method} ${cutEcho(request.url ?? '/')} HTTP/1.1".`,
        closeConnection,
      );
    }
    throw new ServiceError('ERR_HTTP_VERSION', `HTTP/${request.httpVersion} is not supported: send the request as HTTP/1.1.`, closeConnection);
  }
  // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, and for any with more than one.
  const hosts = countHosts(request.rawHeaders);
  if (hosts === 0 && request.httpVersionMinor === 1) {
    throw new ServiceError(
      'ERR_REQUEST_MALFORMED',
      'The request has no Host header: HTTP/1.1 requires one (e.g. "Host: refdata.example.com").',
      closeConnection,
    );
  }
  if (hosts > 1) throw new ServiceError('ERR_REQUEST_MALFORMED', `The request has ${hosts} Host headers: send one.`, closeConnection);
  // Node answers 100-continue itself; any other expectation reaches here through 'checkExpectation'.
  const expectation = request.headers.expect;
  if (expectation !== undefined && !continueExpectation.test(expectation)) {
    throw new ServiceError(
      'ERR_EXPECTATION',
      `The Expect header asks for "${cutEcho(expectation)}", which this service does not support: send no Expect header.`,
      closeConnection,
    );
  }
  // A body on a GET means nothing here (RFC 9110 §9.3.1), and a front end that reads it differently
  // would see another request in it. It is refused before it is read: its framing may be broken.
  if (method === 'GET' || method === 'HEAD') {
    const framing =
      request.headers['transfer-encoding'] !== undefined
        ? 'Transfer-Encoding'
        : Number(request.headers['content-length'] ?? 0) > 0
          ? 'Content-Length'
          : undefined;
    if (framing)
      throw new ServiceError('ERR_REQUEST_MALFORMED', `A ${method} request carries no body: remove the ${framing} header and the body.`, closeConnection);
  }
}

/** What Node's parser (llhttp) attaches to the errors it reports. */
interface ParseError extends NodeJS.ErrnoException {
  readonly reason?: string;
  /** Where in rawPacket the parser stopped: at or just after the offending byte. */
  readonly bytesParsed?: number;
  readonly rawPacket?: Buffer;
}

const lf = 0x0a;
const cr = 0x0d;

/** The line of `packet` holding position `at`, without its line ending. */
function lineAt(packet: Buffer, at: number): { start: number; text: string } {
  const start = packet.lastIndexOf(lf, Math.max(at - 1, 0)) + 1;
  const newline = packet.indexOf(lf, start);
  const text = packet.subarray(start, newline === -1 ? packet.length : newline).toString('latin1');
  return { start, text: text.endsWith('\r') ? text.slice(0, -1) : text };
}

/** A bare LF or bare CR where the parser stopped, which is where llhttp notices one. */
function bareLineEnding(packet: Buffer, at: number): 'LF' | 'CR' | undefined {
  for (const position of [at - 1, at]) {
    const byte = packet[position];
    if (byte === lf && packet[position - 1] !== cr) return 'LF';
    if (byte === cr && position + 1 < packet.length && packet[position + 1] !== lf) return 'CR';
  }
  return undefined;
}

/** What a header line that llhttp refused got wrong: its name, its value, or its start. */
function describeHeaderLine(packet: Buffer, at: number): string {
  const { start } = lineAt(packet, at);
  const upToError = packet.subarray(start, at + 1).toString('latin1');
  if (upToError.startsWith(' ') || upToError.startsWith('\t')) {
    return 'A header line starts with whitespace (an obsolete folded header): put each header on one line.';
  }
  if (upToError.includes(':')) return 'A header value holds a control character: remove it.';
  return 'A header name holds a character a name may not (a space, or a space before the colon): write each header as "Name: value".';
}

interface EdgeTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
}

/** The answer to a request llhttp refused, by its error code; undefined when it gets none. */
function describeParseError(error: ParseError, timeouts: EdgeTimeouts): ServiceError | undefined {
  const packet = error.rawPacket ?? Buffer.alloc(0);
  const at = error.bytesParsed ?? 0;
  const refuse = (message: string, code: ErrorCode = 'ERR_REQUEST_MALFORMED'): ServiceError => new ServiceError(code, message);
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return refuse(
        `The request was not completed in time: send its headers within ${timeouts.headersMs / 1000} s and all of it within ${timeouts.requestMs / 1000} s.`,
        'ERR_REQUEST_TIMEOUT',
      );
    case 'HPE_HEADER_OVERFLOW':
      return refuse(
        `The request line and headers exceed ${http.maxHeaderSize / 1024} KiB: send fewer or shorter headers, or a shorter URL.`,
        'ERR_REQUEST_TOO_LARGE',
      );
    case 'HPE_INVALID_EOF_STATE':
      return refuse('The connection was closed before the request was complete: end the headers with an empty line (CRLF CRLF).');
    case 'HPE_CLOSED_CONNECTION':
      // Bytes after a request that said `Connection: close` (or was HTTP/1.0): that request's answer
      // is the connection's last.
      return undefined;
    case 'HPE_PAUSED_H2_UPGRADE':
      return refuse('HTTP/2 is not supported: this service speaks HTTP/1.1 (connect without HTTP/2 prior knowledge).', 'ERR_HTTP_VERSION');
  }
  const ending = bareLineEnding(packet, at);
  if (ending) return refuse(`The request has a line ending in a bare ${ending}: end every line of the request line and headers with CRLF (\\r\\n).`);
  const line = lineAt(packet, at).text;
  switch (error.code) {
    case 'HPE_INVALID_METHOD': {
      const method = line.slice(0, line.indexOf(' ') === -1 ? undefined : line.indexOf(' '));
      if (methodToken.test(method)) return methodNotAllowed(method);
      return refuse('The request line does not start with an HTTP method: write it as "GET /path HTTP/1.1".');
    }
    case 'HPE_INVALID_URL':
      return refuse(
        'The request target holds a character HTTP does not allow there: percent-encode characters outside ASCII in the path and query (e.g. name=%C4%B0stanbul).',
      );
    case 'HPE_INVALID_CONSTANT':
      if (line.split(' ').length > 3) return refuse('The request target holds a space: percent-encode spaces in the path and query as %20.');
      return refuse('The request line must end with the HTTP version: write it as "GET /path HTTP/1.1".');
    case 'HPE_INVALID_VERSION': {
      const version = /(?:^| )HTTP\/(\d)\.(\d)$/.exec(line)?.slice(1);
      if (!version) return refuse('The request line must be "METHOD /path HTTP/1.1" and nothing more, ended by CRLF.');
      // 505 is for a major version (RFC 9110 §15.6.6); HTTP/1.2 is HTTP/1, which llhttp will not parse.
      const [major, minor] = version;
      return refuse(`HTTP/${major}.${minor} is not supported: send the request as HTTP/1.1.`, major === '1' ? 'ERR_REQUEST_MALFORMED' : 'ERR_HTTP_VERSION');
    }
    case 'HPE_INVALID_HEADER_TOKEN':
      return refuse(describeHeaderLine(packet, at));
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return refuse('The request has more than one Content-Length header: requests here carry no body, so send none.');
    case 'HPE_INVALID_CONTENT_LENGTH':
      return refuse('Content-Length must be a number of bytes: requests here carry no body, so send no Content-Length.');
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return refuse(
        'The request has a Transfer-Encoding that cannot frame its body (or one beside Content-Length): requests here carry no body, so send neither.',
      );
    default:
      return refuse(
        `The request is not valid HTTP/1.1 (${error.reason ?? error.code ?? 'unknown error'}): send "GET /path HTTP/1.1", headers as "Name: value", every line ended by CRLF.`,
      );
  }
}

/**
 * Answers `refusal` (or nothing) and closes the connection, once, after the response it is giving.
 * Closing is a FIN, so the client reads the answer before the connection goes (a reset could
 * discard it unread); a client that does not close its side too is cut off after `lingerMs`.
 */
function closeWith(socket: Duplex, refusal: ServiceError | undefined, lingerMs: number): void {
  if (closing.has(socket)) return;
  closing.add(socket);
  const close = (): void => {
    if (!socket.writable) return void socket.destroy();
    socket.end(refusal ? renderRawFailure(refusal, closeConnection) : undefined);
    const linger = setTimeout(() => socket.destroy(), lingerMs);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };
  const pending = (socket as WatchedSocket)[answering];
  if (!pending || pending.writableFinished) close();
  else pending.once('close', close);
}

export interface EdgeOptions extends EdgeTimeouts {
  readonly lingerMs: number;
}

/**
 * Answers what never reaches the request listener: requests llhttp refuses ('clientError'),
 * CONNECT ('connect', or Node drops the connection), and expectations other than 100-continue
 * ('checkExpectation', or Node answers a bare 417): those go to `listener`, which refuses them.
 */
export function guardEdge(server: http.Server, listener: http.RequestListener, options: EdgeOptions): void {
  server.on('clientError', (error: ParseError, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const pending = (socket as WatchedSocket)[answering];
    // An error in the body of the request being answered belongs to a request that has its answer.
    const answered = pending !== undefined && !pending.req.complete;
    closeWith(socket, answered ? undefined : describeParseError(error, options), options.lingerMs);
  });
  server.on('connect', (request: http.IncomingMessage, socket: Duplex) => {
    // Node has handed the socket over, error listener included.
    socket.on('error', () => socket.destroy());
    closeWith(socket, methodNotAllowed(request.method ?? 'CONNECT'), options.lingerMs);
  });
  server.on('checkExpectation', listener);
}

/**
 * The mirroring operations in the OpenAPI document (openapi.ts): /meta/changes, /exports and
 * /exports/{recordType}.ndjson.gz, none of them in the reference-data API specification, so each is
 * marked `x-extension`. Their bodies' schemas come from the zod schemas both sides share
 * (contract/downloads.ts); the shared responses and headers from openapiComponents.ts.
 */
import { z } from 'zod';
import { buildIdForm, buildIdPattern, changeListSchema, exportsIndexSchema, gzipType } from '../contract/downloads.ts';
import { cacheControl } from '../contract/http.ts';
import { recordTypes } from '../contract/routes.ts';
import { envelope, failure, headerRefs, lookupHeaders, ref, type JsonObject } from './openapiComponents.ts';

export const mirroringTag = {
  name: 'mirroring',
  description: 'Change lists and whole-dataset exports, for a client that keeps a copy of the data (an extension).',
};

function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as JsonObject;
  return rest;
}

const extension = (why: string): string => `**Extension**: not in the reference-data API specification; offered because ${why}.`;

const header = (description: string, schema: JsonObject, required = true): JsonObject => ({ description, required, schema });
const exportHeaders = {
  ...headerRefs({ ETag: 'ETag', 'X-Data-Version': 'DataVersion', 'X-Request-Id': 'RequestId', 'RateLimit-Policy': 'RateLimitPolicy', RateLimit: 'RateLimit' }),
  'Cache-Control': header('Token-gated: no shared cache may keep it; a client may reuse it for a minute.', { const: cacheControl }),
  'Accept-Ranges': header('Ranges of bytes may be asked for (Range, If-Range).', { const: 'bytes' }),
};
const fileHeaders = {
  ...exportHeaders,
  'Content-Disposition': header('The file name to save it under.', { type: 'string', pattern: '^attachment; filename="[A-Za-z]+\\.ndjson\\.gz"$' }),
};
const gzipContent = { [gzipType]: { schema: { type: 'string', contentMediaType: gzipType } } };

/** The request headers a lookup reads. */
const commonParameters = [ref('parameters', 'XRequestId'), ref('parameters', 'Traceparent'), ref('parameters', 'IfNoneMatch')];

/** A JSON file of the build answered in the envelope, as lookups are: 200 with the body, 304, and the failures. */
function envelopeResponses(body: JsonObject, description: string, notFound: string): JsonObject {
  return {
    200: {
      description,
      headers: headerRefs(lookupHeaders),
      content: { 'application/json': { schema: envelope(body) } },
    },
    304: ref('responses', 'NotModified'),
    401: ref('responses', 'Unauthorized'),
    404: failure(notFound),
    429: ref('responses', 'TooManyRequests'),
    503: ref('responses', 'Unavailable'),
    default: ref('responses', 'OtherFailure'),
  };
}

/** 416: the failure envelope, with the file's size in Content-Range (RFC 9110 §15.5.17). */
function unsatisfiable(): JsonObject {
  const refusal = failure('The range starts past the end of the file.') as { headers: JsonObject };
  const contentRange = header('`bytes */<size>`: the size of the file.', { type: 'string', pattern: '^bytes \\*/[0-9]+$' });
  return { ...refusal, headers: { ...refusal.headers, 'Content-Range': contentRange } };
}

export function downloadPaths(): JsonObject {
  const changes = {
    tags: [mirroringTag.name],
    operationId: 'mirroring-changes',
    summary: 'What changed since an earlier build: ids added, removed and changed per record type, and the sources that moved',
    description: [
      'Without `since`, the changes against the build this one replaced; `from` is null when there was none (a first build: mirror from the exports).',
      'With `since`, the changes since that build, for every build still kept (`since` this build itself answers an empty list).',
      'Changed records list the fields, as the API shows them, whose values differ; the new values are in the exports and the lookups.',
      extension('a client that mirrors the data can update itself from it, fetching only what changed'),
    ].join(' '),
    'x-extension': true,
    parameters: [
      {
        name: 'since',
        in: 'query',
        required: false,
        description: `The build the client holds: ${buildIdForm}. Omitted: the build this one replaced.`,
        schema: { type: 'string', pattern: buildIdPattern.source },
      },
      ...commonParameters,
    ],
    responses: {
      ...envelopeResponses(
        jsonSchemaOf(changeListSchema),
        'The change list.',
        'The `since` build is no longer kept (the message names the builds that are: start again from the exports); or the build was made before change lists existed.',
      ),
      400: ref('responses', 'BadParameter'),
    },
  };
  const index = {
    tags: [mirroringTag.name],
    operationId: 'mirroring-exports',
    summary: 'The exports of this build: per record type its path, record count, size and SHA-256',
    description: [
      'Also answered at `/exports/` and `/exports/index`. Each export is every record of one type as the API shows it, one JSON object a line (NDJSON), in data order, gzipped;',
      'the same data gives the same bytes, so an unchanged type keeps its SHA-256 and ETag from build to build.',
      extension('a client can mirror the whole dataset in a few requests'),
    ].join(' '),
    'x-extension': true,
    parameters: commonParameters,
    responses: {
      ...envelopeResponses(jsonSchemaOf(exportsIndexSchema), 'The index of the exports.', 'The build was made before exports existed.'),
      400: ref('responses', 'BadAuthorization'),
    },
  };
  const download = {
    tags: [mirroringTag.name],
    operationId: 'mirroring-export',
    summary: 'Every record of one type, as gzipped NDJSON',
    description: [
      'The file as it is (`application/gzip`, not a Content-Encoding: save it, then gunzip), its SHA-256 that of `/exports`.',
      'A finance record type needs the finance scope, as its lookups do. One range of bytes is answered 206, several the whole file.',
      extension('a client can mirror the whole dataset in a few requests'),
    ].join(' '),
    'x-extension': true,
    parameters: [
      {
        name: 'recordType',
        in: 'path',
        required: true,
        description: 'The record type, in any letter case.',
        schema: { type: 'string', enum: [...recordTypes] },
      },
      {
        name: 'Range',
        in: 'header',
        required: false,
        description: 'One range of bytes, `bytes=first-last`, `bytes=first-` or `bytes=-length`.',
        schema: { type: 'string' },
      },
      {
        name: 'If-Range',
        in: 'header',
        required: false,
        description: 'The ETag the client holds: the range while the file is still that one, else the whole file.',
        schema: { type: 'string' },
      },
      ...commonParameters,
    ],
    responses: {
      200: { description: 'The whole file.', headers: fileHeaders, content: gzipContent },
      206: {
        description: 'The range asked for.',
        headers: {
          ...fileHeaders,
          'Content-Range': header('The part sent, and the whole size.', { type: 'string', pattern: '^bytes [0-9]+-[0-9]+/[0-9]+$' }),
        },
        content: gzipContent,
      },
      304: { description: 'The file named in If-None-Match is still current: no body.', headers: exportHeaders },
      400: ref('responses', 'BadAuthorization'),
      401: ref('responses', 'Unauthorized'),
      403: ref('responses', 'Forbidden'),
      404: failure('No such record type (`/exports` lists them), or the build was made before exports existed.'),
      416: unsatisfiable(),
      429: ref('responses', 'TooManyRequests'),
      503: ref('responses', 'Unavailable'),
      default: ref('responses', 'OtherFailure'),
    },
  };
  return { '/meta/changes': { get: changes }, '/exports': { get: index }, '/exports/{recordType}.ndjson.gz': { get: download } };
}

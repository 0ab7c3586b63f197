/**
 * The mirroring operations in the OpenAPI document (document.ts): /meta/changes, /exports and
 * /exports/{recordType}.ndjson.gz, none of them in the reference-data API specification, so each is
 * marked `x-extension`. Their bodies' schemas come from the zod schemas both sides share
 * (contract/downloads.ts); the shared responses and headers from components.ts.
 */
import { buildIdForm, buildIdPattern, changeListSchema, exportsIndexSchema, gzipType } from '../../contract/downloads.ts';
import { cacheControl } from '../../contract/http.ts';
import { recordTypes } from '../../contract/routes.ts';
import { envelope, failure, headerRefs, jsonSchemaOf, lookupHeaders, ref, withDescriptions, type JsonObject } from './components.ts';

export const mirroringTag = {
  name: 'mirroring',
  description: 'Change lists and whole-dataset exports, for a client that keeps a copy of the data (an extension).',
};

/** A build as a change list names it (its `from` and `to`). */
const buildFields = (build: string): Record<string, string> => ({
  [build]:
    build === 'from'
      ? 'The build compared with; null when there was none (a first build): mirror from the exports.'
      : 'This build: the one the lookups answer from.',
  [`${build}.buildId`]: 'Its id: the UTC time it was made, to the second, and six random hex digits (20261123T172132Z-56f99d).',
  [`${build}.builtAt`]: 'When it was made (ISO 8601, UTC).',
  [`${build}.dataVersion`]: 'A hash of the data it read: the X-Data-Version of its answers.',
});

/** What the fields of the change list and of the exports index hold (contract/downloads.ts states their shapes). */
const changeListDescriptions = {
  ...buildFields('from'),
  ...buildFields('to'),
  records: 'By record type (country, bank …), only the types with a change: the ids added and removed, and the records changed.',
  'records.added': 'The ids of the records new in this build.',
  'records.removed': 'The ids of the records this build no longer has.',
  'records.changed': 'The records whose shown fields changed, each with those fields.',
  'records.changed.id': 'The id of the changed record.',
  'records.changed.fields': 'The names of its fields, as the API shows them, whose values differ; the new values are in the exports and the lookups.',
  sources: 'The data sources whose versions moved between the two builds.',
  'sources.name': 'The source, as data/sources.json names it (python-holidays, world-countries …).',
  'sources.from': 'Its version in the earlier build; null where the earlier build did not list it.',
  'sources.to': 'Its version in this build; null where this build does not list it.',
};
const exportsIndexDescriptions = {
  buildId: 'This build: the UTC time it was made, to the second, and six random hex digits (20261123T172132Z-56f99d); /meta/changes?since= takes it.',
  builtAt: 'When this build was made (ISO 8601, UTC).',
  dataVersion: 'A hash of the data this build read: the X-Data-Version of its answers and of every export.',
  sources: 'The version of each data source this build read, by source name (data/sources.json).',
  exports: "One export per record type, by record type, in the route table's order.",
  'exports.path': 'Where to download it: /exports/<recordType>.ndjson.gz.',
  'exports.area': "The area whose scope the download needs, as the type's lookups do: financemanagement or addressmanagement.",
  'exports.records': 'How many records it holds, one a line.',
  'exports.bytes': 'The size of the gzip file in bytes.',
  'exports.sha256': 'The SHA-256 of the gzip file, in hex, as sha256sum prints it.',
  'exports.etag': 'The ETag the file is served with: send it in If-None-Match to get 304 while it is unchanged.',
  'exports.ndjson': 'The NDJSON inside the gzip file: one record a line as the API shows it, each line ended by a newline.',
  'exports.ndjson.bytes': 'Its size in bytes, unzipped.',
  'exports.ndjson.sha256': 'Its SHA-256, in hex.',
};

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
function envelopeResponses(body: JsonObject, description: string, notFound?: string): JsonObject {
  return {
    200: {
      description,
      headers: headerRefs(lookupHeaders),
      content: { 'application/json': { schema: envelope(body, description) } },
    },
    304: ref('responses', 'NotModified'),
    401: ref('responses', 'Unauthorized'),
    ...(notFound === undefined ? {} : { 404: failure(notFound) }),
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

/** /meta/changes: what changed since an earlier build. */
function changesOperation(): JsonObject {
  return {
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
        withDescriptions(jsonSchemaOf(changeListSchema), changeListDescriptions),
        'The change list.',
        'The `since` build is no longer kept (the message names the builds that are: start again from the exports).',
      ),
      400: ref('responses', 'BadParameter'),
    },
  };
}

/** /exports: the exports' index. */
function exportsIndexOperation(): JsonObject {
  return {
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
      ...envelopeResponses(withDescriptions(jsonSchemaOf(exportsIndexSchema), exportsIndexDescriptions), 'The index of the exports.'),
      400: ref('responses', 'BadAuthorization'),
    },
  };
}

/** /exports/{recordType}.ndjson.gz: one export, whole or a range of it. */
function exportOperation(): JsonObject {
  return {
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
      404: failure('No such record type: `/exports` lists them.'),
      416: unsatisfiable(),
      429: ref('responses', 'TooManyRequests'),
      503: ref('responses', 'Unavailable'),
      default: ref('responses', 'OtherFailure'),
    },
  };
}

export function downloadPaths(): JsonObject {
  return {
    '/meta/changes': { get: changesOperation() },
    '/exports': { get: exportsIndexOperation() },
    '/exports/{recordType}.ndjson.gz': { get: exportOperation() },
  };
}

/**
 * The public files of a build: the OpenAPI document and the docs page, Swagger UI from
 * swagger-ui-dist copied into the build so that the page loads nothing from anywhere else.
 * Their paths are the ones proxy/http/publicFiles.ts serves without a token: `openapi.json`,
 * `docs/index.html` (at /docs) and `docs/<asset>`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { countriesStatesCitiesAttribution, geonamesAttribution } from '../../contract/recordTypes.ts';
import type { PublicFile } from '../write.ts';

const escapeHtml = (text: string): string => text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');

const json = 'application/json; charset=utf-8';
const html = 'text/html; charset=utf-8';
const javascript = 'text/javascript; charset=utf-8';
const css = 'text/css; charset=utf-8';
const text = 'text/plain; charset=utf-8';
const png = 'image/png';

/**
 * What the page needs from swagger-ui-dist, by the name it gets under docs/. The bundle names its
 * third-party licences in a file beside it; Apache-2.0 asks for the licence and notice to travel
 * with the code.
 */
const swaggerUiFiles: Readonly<Record<string, readonly [source: string, contentType: string]>> = {
  'swagger-ui.css': ['swagger-ui.css', css],
  'swagger-ui-bundle.js': ['swagger-ui-bundle.js', javascript],
  'swagger-ui-bundle.js.LICENSE.txt': ['swagger-ui-bundle.js.LICENSE.txt', text],
  'swagger-ui-LICENSE.txt': ['LICENSE', text],
  'swagger-ui-NOTICE.txt': ['NOTICE', text],
  'favicon-32x32.png': ['favicon-32x32.png', png],
  'favicon-16x16.png': ['favicon-16x16.png', png],
};

/*
 * Asset URLs are absolute paths: /docs (no trailing slash) serves this page too, and from there a
 * bare `swagger-ui.css` would resolve to /swagger-ui.css. The page has no inline script, so a
 * Content-Security-Policy of `script-src 'self'` fits it.
 */
const indexHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reference data API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<p style="font: 12px sans-serif; text-align: center; color: #666">
Shown with Swagger UI (Apache-2.0: <a href="/docs/swagger-ui-LICENSE.txt">licence</a>,
<a href="/docs/swagger-ui-NOTICE.txt">notice</a>, <a href="/docs/swagger-ui-bundle.js.LICENSE.txt">bundled libraries</a>).
The document itself: <a href="/openapi.json">/openapi.json</a>.<br>
The service's code is MIT-licensed; the data keeps its sources' licences: countries and regions
ODbL 1.0 (world-countries), populations CC BY 4.0 (World Bank) and CC BY 3.0 IGO (UN), states and
provinces LGPL-2.1-or-later (iso-codes), web domains MPL-2.0 (Public Suffix List), languages and
currencies Unicode License v3 (CLDR), holidays MIT (python-holidays).<br>
Districts, neighbourhoods and postal codes outside Türkiye: ${geonamesAttribution}; districts also
${escapeHtml(countriesStatesCitiesAttribution)}, so the district export is offered under the ODbL 1.0 (share-alike).
Each export's terms are in its entry of the exports index, /exports/.
</p>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/index.js"></script>
</body>
</html>
`;

/**
 * No validator badge (it would send the document to validator.swagger.io), no top bar; models shown
 * as schemas, folded until clicked, so that an expanded operation stays a few screens tall.
 */
const indexJs = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null,
  persistAuthorization: false,
  defaultModelRendering: 'model',
  defaultModelExpandDepth: 0,
});
`;

function swaggerUiDirectory(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** Every public file of a build, by its path relative to dist/; the same input gives the same bytes. */
export async function buildPublicFiles(openApiDocument: object): Promise<Map<string, PublicFile>> {
  const files = new Map<string, PublicFile>([
    ['openapi.json', { bytes: Buffer.from(`${JSON.stringify(openApiDocument)}\n`), contentType: json }],
    ['docs/index.html', { bytes: Buffer.from(indexHtml), contentType: html }],
    ['docs/index.js', { bytes: Buffer.from(indexJs), contentType: javascript }],
  ]);
  const source = swaggerUiDirectory();
  for (const [name, [file, contentType]] of Object.entries(swaggerUiFiles)) {
    files.set(`docs/${name}`, { bytes: await readFile(path.join(source, file)), contentType });
  }
  return files;
}

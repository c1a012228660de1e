import { Hono } from 'hono';
import type { AppEnv } from '../../http/context';
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import swaggerCss from 'swagger-ui-dist/swagger-ui.css';
import { version as swaggerVersion } from 'swagger-ui-dist/package.json';

// The interactive reference at /docs: Swagger UI from the pinned swagger-ui-dist package, bundled
// into the Worker and served by it, so the page needs nothing but this server (no CDN; it works
// offline and behind a firewall; test/pages/docs.browser.spec.ts). Swagger UI draws only what is
// in the window once a document has 150 operations and tags. The asset paths carry the bundle's version, so a browser may keep
// them for a year and still gets the new ones after an upgrade.

export const docsRoutes = new Hono<AppEnv>();

const ASSET = `/docs/assets/${swaggerVersion}`;
const IMMUTABLE = 'public, max-age=31536000, immutable';

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Edge billing API — reference</title>
<link rel="stylesheet" href="${ASSET}/swagger-ui.css">
</head>
<body>
<noscript>This reference needs JavaScript. The OpenAPI document itself: <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${ASSET}/swagger-ui-bundle.js"></script>
<script src="${ASSET}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
const init = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  validatorUrl: null,
  tagsSorter: 'alpha',
});
`;

docsRoutes.get('/docs', (c) => c.html(page, 200, { 'Cache-Control': 'no-cache' }));
docsRoutes.get(`${ASSET}/swagger-ui.css`, (c) => c.body(swaggerCss, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': IMMUTABLE }));
docsRoutes.get(`${ASSET}/swagger-ui-bundle.js`, (c) =>
  c.body(swaggerBundle, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': IMMUTABLE }),
);
// The settings are ours, not the bundle's: they may change without a new version in the path.
docsRoutes.get(`${ASSET}/init.js`, (c) => c.body(init, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));

import { type AnyElysia, Elysia } from 'elysia'
import type { OpenAPIV3_1 } from 'openapi-types'
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import { baseUrl } from '../http/url'
import { buildOpenApiDocument, serversOf } from './openapi'

/** What the docs routes need. */
export interface DocsOptions {
  /** The app whose routes the document describes; read on first request, when every route exists. */
  app: () => AnyElysia
  publicUrl?: string
}

/** The docs page's icon, inline, so showing it costs no request. */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">🐾</text></svg>'
const FAVICON_DATA_URL = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`

// Relative URLs, so the page also works under a proxy's path prefix. No
// validator badge: Swagger UI would otherwise send the document to swagger.io.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Animal Store API</title>
  <link rel="icon" href="${FAVICON_DATA_URL}">
  <link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-init.js"></script>
</body>
</html>
`

// Served as a file, not inline, so the page's Content-Security-Policy needs no 'unsafe-inline' for scripts.
// The document's URL is relative to the page, as the page's own are.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  persistAuthorization: true,
  displayRequestDuration: true
})
`

/**
 * The docs page may load and call only its own origin: scripts, styles and
 * the "Try it out" requests; images also as data: URLs (its icon, Swagger
 * UI's inline SVG). No inline script, no frame around it.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
  // "Try it out" and links away from the page tell no one where they came from.
  'referrer-policy': 'no-referrer',
}

const DAY = 'public, max-age=86400'

/**
 * `GET /openapi.json`, the Swagger UI at `/docs` (under a strict
 * Content-Security-Policy) and its icon, `GET /` sent on to `/docs`, every asset served from
 * the local swagger-ui-dist (embedded in the compiled binary), so the docs
 * work air-gapped. None of them needs a key.
 */
export function docsRoutes({ app, publicUrl }: DocsOptions) {
  let document: OpenAPIV3_1.Document | undefined
  return (
    new Elysia({ name: 'docs' })
      .get(
        '/openapi.json',
        ({ request }) => {
          // Built once; only `servers` follows the request, as `Link` and `Location` do (not cached per host,
          // which a client could grow without bound).
          const base = baseUrl(publicUrl, request.url)
          document ??= buildOpenApiDocument(app(), { baseUrl: base })
          const served = { ...document, servers: serversOf(base) }
          return new Response(JSON.stringify(served), {
            headers: { 'content-type': 'application/json; charset=utf-8' },
          })
        },
        { detail: { hide: true } },
      )
      .get(
        '/docs',
        ({ request }) => {
          // "/docs/" would resolve the page's relative URLs one folder too deep.
          if (new URL(request.url).pathname.endsWith('/'))
            return new Response(null, { status: 308, headers: { location: '../docs' } })
          return new Response(PAGE, { headers: PAGE_HEADERS })
        },
        { detail: { hide: true } },
      )
      .get(
        '/docs/swagger-init.js',
        () =>
          new Response(INIT_SCRIPT, {
            headers: { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': DAY },
          }),
        { detail: { hide: true } },
      )
      // A newcomer who opens the service's address lands on its documentation. Relative, as the page's URLs are.
      .get('/', () => new Response(null, { status: 302, headers: { location: 'docs' } }), { detail: { hide: true } })
      .get('/docs/swagger-ui-bundle.js', () => asset(swaggerBundle, 'application/javascript; charset=utf-8'), {
        detail: { hide: true },
      })
      .get('/docs/swagger-ui.css', () => asset(swaggerCss, 'text/css; charset=utf-8'), { detail: { hide: true } })
      // Browsers ask for it on any page they show (the JSON document, say): the same icon, not a 404 in the console.
      .get(
        '/favicon.ico',
        () => new Response(FAVICON_SVG, { headers: { 'content-type': 'image/svg+xml', 'cache-control': DAY } }),
        { detail: { hide: true } },
      )
  )
}

function asset(path: string, contentType: string): Response {
  return new Response(Bun.file(path), { headers: { 'content-type': contentType, 'cache-control': DAY } })
}

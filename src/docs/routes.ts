import { type AnyElysia, Elysia } from 'elysia'
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import swaggerBundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import { identityResponse, negotiatedResponse, Representation } from '../http/compression'
import { entityTag } from '../http/conditional'
import { JSON_CONTENT_TYPE } from '../http/media_types'
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

/**
 * The docs page, naming each asset by its version (the `v` query is its
 * ETag's hash), so a browser may keep an asset for a year and a new release
 * is fetched at once. Relative URLs, so the page also works under a proxy's
 * path prefix. No validator badge: Swagger UI would otherwise send the
 * document to swagger.io.
 */
function docsPage(version: (asset: StaticAsset) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Animal Store API</title>
  <link rel="icon" href="${FAVICON_DATA_URL}">
  <link rel="stylesheet" href="docs/swagger-ui.css?v=${version(SWAGGER_CSS)}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js?v=${version(SWAGGER_BUNDLE)}"></script>
  <script src="docs/swagger-init.js?v=${version(INIT)}"></script>
</body>
</html>
`
}

// Served as a file, not inline, so the page's Content-Security-Policy needs no 'unsafe-inline' for scripts.
// The document's URL is relative to the page, as the page's own are.
// The key stays in the page's memory only (persistAuthorization off): Swagger UI would keep it in
// localStorage for good, readable by anything on the origin. A key an older page left there is removed.
const INIT_SCRIPT = `try { window.localStorage.removeItem('authorized') } catch (e) {}
window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  persistAuthorization: false,
  displayRequestDuration: true
})
`

/** A file the docs page loads: its bytes come from a path (in the binary when compiled) or from text. */
interface StaticAsset {
  source: { path: string } | { text: string }
  contentType: string
}

const SWAGGER_BUNDLE: StaticAsset = {
  source: { path: swaggerBundle },
  contentType: 'application/javascript; charset=utf-8',
}
const SWAGGER_CSS: StaticAsset = { source: { path: swaggerCss }, contentType: 'text/css; charset=utf-8' }
const INIT: StaticAsset = { source: { text: INIT_SCRIPT }, contentType: 'application/javascript; charset=utf-8' }

// The assets never change while the process runs: read, tagged and compressed once per process, on first use.
const loaded = new Map<StaticAsset, Promise<Representation>>()

function load(asset: StaticAsset): Promise<Representation> {
  let representation = loaded.get(asset)
  if (representation === undefined) {
    representation = (async () => {
      const { source } = asset
      const bytes = 'path' in source ? await Bun.file(source.path).bytes() : new TextEncoder().encode(source.text)
      const representation = new Representation(bytes, `"${Bun.hash(bytes).toString(36)}"`, 'best')
      // The first visitor waits for gzip (milliseconds); brotli follows on zlib's threads for those after.
      await representation.startCompressing()
      return representation
    })()
    loaded.set(asset, representation)
  }
  return representation
}

/** The version the page names an asset by: its ETag without the quotes. */
function versionOf(representation: Representation): string {
  return representation.identity.etag.slice(1, -1)
}

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

/** What may change with a release (the page, the document, an unversioned asset URL): kept, but asked about each time. */
export const REVALIDATE_EACH_TIME = 'no-cache'
/** An asset named by its version never changes: kept for a year and never asked about. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'
const DAY = 'public, max-age=86400'

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
  // "Try it out" and links away from the page tell no one where they came from.
  'referrer-policy': 'no-referrer',
  'cache-control': REVALIDATE_EACH_TIME,
}

// The document is the same for every request but its `servers`, which follow the request's base URL (with no
// PUBLIC_URL). The first few bases are kept, compressed once; any other (a client inventing Host headers) gets
// the document made from its text and the base, uncompressed: no per-Host JSON or compression work.
const OPENAPI_BASES_KEPT = 8
// Stands for the base URL in the document's text while it is made once; no URL contains it.
const BASE_PLACEHOLDER = '\u0000base\u0000'

/**
 * `GET /openapi.json`, the Swagger UI at `/docs` (under a strict
 * Content-Security-Policy) and its icon, `GET /` sent on to `/docs`, every
 * asset served from the local swagger-ui-dist (embedded in the compiled
 * binary), so the docs work air-gapped. Assets and the document are sent
 * compressed when the browser asks (brotli or gzip, made once), with an
 * ETag for a 304. None of them needs a key.
 */
export function docsRoutes({ app, publicUrl }: DocsOptions) {
  // The document's text around its `servers` URL, made once: a base's document is the three joined.
  let halves: [string, string] | undefined
  const documentFor = (base: string): string => {
    if (halves === undefined) {
      const document = buildOpenApiDocument(app(), { baseUrl: BASE_PLACEHOLDER })
      const text = JSON.stringify({ ...document, servers: serversOf(BASE_PLACEHOLDER) })
      const at = text.indexOf(JSON.stringify(BASE_PLACEHOLDER).slice(1, -1))
      if (at === -1 || text.indexOf('\\u0000base', at + 1) !== -1)
        throw new Error('the base URL must appear once in the document, in servers')
      halves = [text.slice(0, at), text.slice(at + JSON.stringify(BASE_PLACEHOLDER).length - 2)]
    }
    return halves[0] + JSON.stringify(base).slice(1, -1) + halves[1]
  }
  const documents = new Map<string, Representation>()
  let page: Representation | undefined
  const pageRepresentation = async () => {
    if (page !== undefined) return page
    const versions = new Map<StaticAsset, string>()
    for (const asset of [SWAGGER_BUNDLE, SWAGGER_CSS, INIT]) versions.set(asset, versionOf(await load(asset)))
    const html = docsPage((asset) => versions.get(asset) as string)
    page = new Representation(html, entityTag(html))
    return page
  }
  const assetRoute =
    (asset: StaticAsset) =>
    async ({ request }: { request: Request }) => {
      const representation = await load(asset)
      const versioned = new URL(request.url).searchParams.get('v') === versionOf(representation)
      return negotiatedResponse(request, representation, {
        'content-type': asset.contentType,
        'cache-control': versioned ? IMMUTABLE : REVALIDATE_EACH_TIME,
      })
    }
  return (
    new Elysia({ name: 'docs' })
      .get(
        '/openapi.json',
        ({ request }) => {
          // Built once; only `servers` follows the request, as `Link` and `Location` do.
          const base = baseUrl(publicUrl, request.url)
          const headers = { 'content-type': JSON_CONTENT_TYPE, 'cache-control': REVALIDATE_EACH_TIME }
          let representation = documents.get(base)
          if (representation === undefined) {
            const json = documentFor(base)
            // Past the first few bases, nothing is kept or compressed: the text is sent as made, with its tag.
            if (documents.size >= OPENAPI_BASES_KEPT) return identityResponse(request, json, headers)
            representation = new Representation(json, entityTag(json))
            documents.set(base, representation)
          }
          return negotiatedResponse(request, representation, headers)
        },
        { detail: { hide: true } },
      )
      .get(
        '/docs',
        async ({ request }) => {
          // "/docs/" would resolve the page's relative URLs one folder too deep.
          if (new URL(request.url).pathname.endsWith('/'))
            return new Response(null, { status: 308, headers: { location: '../docs' } })
          return negotiatedResponse(request, await pageRepresentation(), PAGE_HEADERS)
        },
        { detail: { hide: true } },
      )
      .get('/docs/swagger-init.js', assetRoute(INIT), { detail: { hide: true } })
      // A newcomer who opens the service's address lands on its documentation. Relative, as the page's URLs are.
      .get('/', () => new Response(null, { status: 302, headers: { location: 'docs' } }), { detail: { hide: true } })
      .get('/docs/swagger-ui-bundle.js', assetRoute(SWAGGER_BUNDLE), { detail: { hide: true } })
      .get('/docs/swagger-ui.css', assetRoute(SWAGGER_CSS), { detail: { hide: true } })
      // Browsers ask for it on any page they show (the JSON document, say): the same icon, not a 404 in the console.
      .get(
        '/favicon.ico',
        () => new Response(FAVICON_SVG, { headers: { 'content-type': 'image/svg+xml', 'cache-control': DAY } }),
        { detail: { hide: true } },
      )
  )
}

/** A route as Elysia lists it in `app.routes`. */
export interface RouteEntry {
  method: string
  path: string
}

/**
 * Answers "which methods does this path allow?" from the app's own route
 * list, so a 405's `Allow` header can never disagree with the routes.
 * The table is built on first use, after every route is registered.
 */
export function allowedMethods(routes: () => readonly RouteEntry[]): (path: string) => string | undefined {
  let table: { pattern: RegExp; allow: string }[] | undefined
  return (path) => {
    table ??= buildTable(routes())
    return table.find(({ pattern }) => pattern.test(path))?.allow
  }
}

function buildTable(routes: readonly RouteEntry[]): { pattern: RegExp; allow: string }[] {
  const byPath = new Map<string, Set<string>>()
  for (const { method, path } of routes) {
    const methods = byPath.get(path) ?? new Set<string>()
    methods.add(method)
    // Elysia answers HEAD for every GET route.
    if (method === 'GET') methods.add('HEAD')
    byPath.set(path, methods)
  }
  return [...byPath].map(([path, methods]) => ({ pattern: pathPattern(path), allow: [...methods].sort().join(', ') }))
}

function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escapeRegExp(segment)))
    .join('/')
  // Elysia matches a path with or without its trailing slash.
  return new RegExp(`^${source}/?$`)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

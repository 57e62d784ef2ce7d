/**
 * The media type of every JSON answer: spelled as Elysia and `Response.json`
 * write it for the bodies they serialize (errors, the quota), so the answers
 * the service serializes itself (pages, a pet, the OpenAPI document) match.
 */
export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8'

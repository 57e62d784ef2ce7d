import type { HostileRequest } from './requests'

/** A create with a valid key and a JSON Content-Type; `{key}` stands for the key. */
function createWith(body: string): HostileRequest {
  return {
    method: 'POST',
    path: '/v1/pets',
    query: '',
    headers: [
      ['authorization', 'Bearer {key}'],
      ['content-type', 'application/json'],
    ],
    body,
  }
}

/** Requests the fuzzer once broke the service with, shrunk by fast-check and kept so the fix stays fixed. */
export const REGRESSIONS: { found: string; request: HostileRequest }[] = [
  {
    found: 'a name with a lone surrogate was stored as U+FFFD: a 201 that altered what was sent',
    request: createWith('{"name":"\\ud800\\u0000","categoryId":1}'),
  },
  {
    found:
      'a name sent as a number beyond 2^53 was stored as its digits: inexact numbers came back as text, which a string field accepted',
    request: createWith('{"categoryId":9007199254740991,"name":-74606261991112580}'),
  },
  {
    found:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text quotes Elysia's template
      'a 500: Elysia builds its validation message with `${value}`, and an object whose own "toString" is not a function cannot become text',
    request: createWith('{"name":{"toString":0}}'),
  },
  {
    found:
      'a 431 of GET /v1/rate_limit had no rate-limit headers: the quota check was let through unread, and its route wrote them',
    request: {
      method: 'GET',
      path: '/v1/rate_limit',
      query: '',
      headers: [
        ['authorization', 'Bearer {key}'],
        ['x-padding', 'p'.repeat(17_000)],
      ],
      body: undefined,
    },
  },
]

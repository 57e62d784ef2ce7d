import type { HostileRequest } from './requests'

/**
 * Requests the fuzzer once broke the service with, shrunk by fast-check and
 * kept so the fix stays fixed. `{key}` in a header stands for a valid key.
 */
export const REGRESSIONS: { found: string; request: HostileRequest }[] = [
  {
    found: 'a name with a lone surrogate was stored as U+FFFD: a 201 that altered what was sent',
    request: {
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: [
        ['authorization', 'Bearer {key}'],
        ['content-type', 'application/json'],
      ],
      body: '{"name":"\\ud800\\u0000","categoryId":1}',
    },
  },
  {
    found: 'a name sent as a number beyond 2^53 was stored as its digits: inexact numbers came back as text, which a string field accepted',
    request: {
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: [
        ['authorization', 'Bearer {key}'],
        ['content-type', 'application/json'],
      ],
      body: '{"categoryId":9007199254740991,"name":-74606261991112580}',
    },
  },
  {
    found: 'a 500: Elysia builds its validation message with `${value}`, and an object whose own "toString" is not a function cannot become text',
    request: {
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: [
        ['authorization', 'Bearer {key}'],
        ['content-type', 'application/json'],
      ],
      body: '{"name":{"toString":0}}',
    },
  },
]

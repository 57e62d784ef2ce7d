import type { ResponseStep } from '../http/every_response'
import type { ServiceMetrics } from './metrics'
import { operationOf } from './operation'

/** A step around every response: each answer, early refusals included, is counted by operation and status, with its latency. */
export function requestMetrics(metrics: ServiceMetrics): ResponseStep<number> {
  return {
    start: () => performance.now(),
    finish(request, response, started) {
      metrics.requestAnswered(operationOf(request), response.status, (performance.now() - started) / 1000)
      return response
    },
  }
}

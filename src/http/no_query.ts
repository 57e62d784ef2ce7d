import { Type } from '@sinclair/typebox'

/** The query of an operation that takes no parameters: any one is refused (400), naming it. */
export const NoQuery = Type.Object({}, { additionalProperties: false })

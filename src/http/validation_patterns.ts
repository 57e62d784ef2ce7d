/** The pattern that refuses strings made only of white space. */
export const NOT_BLANK = '\\S'
/** The pattern that accepts only printable ASCII, space included. */
export const PRINTABLE_ASCII = '^[\\x20-\\x7E]+$'

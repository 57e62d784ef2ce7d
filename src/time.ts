/** Lengths of time in milliseconds. A leaf: the limiter's windows and a key's last use count in them alike. */

/** A clock minute: the limiter's short window, and how finely a key's last use is kept. */
export const MINUTE_MS = 60_000
/** A UTC day: the limiter's long window (epoch milliseconds count UTC days exactly). */
export const DAY_MS = 86_400_000

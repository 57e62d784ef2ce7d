import { createSecureContext } from 'node:tls'
import { ConfigError } from '../config'

/**
 * The TLS 1.2 suites the listener offers: forward-secret (ECDHE) AEAD ones
 * only, as Mozilla's "intermediate" configuration, so no CBC or SHA-1 suite
 * and no static RSA key exchange. TLS 1.3's suites are all AEAD and
 * forward-secret, and TLS 1.1 and older are refused already.
 */
export const TLS_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':')

/** A certificate chain and its private key, as PEM text. */
export interface TlsPair {
  cert: string
  key: string
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE and checks that the key belongs to
 * the certificate (OpenSSL builds a context from them), so a bad pair is a
 * one-line error naming the variable, at start and on a reload alike.
 */
export async function readTlsPair(files: { certFile: string; keyFile: string }): Promise<TlsPair> {
  const cert = await readPem('TLS_CERT_FILE', files.certFile)
  const key = await readPem('TLS_KEY_FILE', files.keyFile)
  try {
    createSecureContext({ cert, key })
  } catch (error) {
    throw new ConfigError(
      'TLS_CERT_FILE',
      `"${files.certFile}" and TLS_KEY_FILE "${files.keyFile}" are not a certificate and its key: ${(error as Error).message}`,
    )
  }
  return { cert, key }
}

async function readPem(variable: string, path: string): Promise<string> {
  let text: string
  try {
    text = await Bun.file(path).text()
  } catch (error) {
    throw new ConfigError(variable, `cannot read "${path}": ${(error as Error).message}`)
  }
  if (!text.includes('-----BEGIN ')) throw new ConfigError(variable, `"${path}" is not a PEM file`)
  return text
}

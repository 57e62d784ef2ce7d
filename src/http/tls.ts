import { createSecureContext } from 'node:tls'
import { ConfigError } from '../config'

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

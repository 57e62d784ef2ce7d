import { beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupsAfterEach, eventually, tempDir } from '../helpers'
import { runCli, startServer } from './process_helpers'

const cleanups = cleanupsAfterEach()
let certs: string

/** A throwaway self-signed certificate for 127.0.0.1 and localhost, made by openssl: `NAME.crt` and `NAME.key`. */
function makeCertificate(name: string): void {
  const made = Bun.spawnSync(
    [
      'openssl',
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      join(certs, `${name}.key`),
      '-out',
      join(certs, `${name}.crt`),
    ],
    { stderr: 'pipe' },
  )
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`)
}

/** GET with only this certificate's CA trusted: the body, or the TLS error's code. */
async function getTrusting(url: string, ca: string): Promise<{ status: number; hsts: string | null } | string> {
  try {
    const response = await fetch(url, { tls: { ca: Bun.file(join(certs, `${ca}.crt`)) } } as RequestInit)
    await response.arrayBuffer()
    return { status: response.status, hsts: response.headers.get('strict-transport-security') }
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

describe('HTTPS in the binary (TLS_CERT_FILE, TLS_KEY_FILE)', () => {
  beforeAll(() => {
    const { dir } = tempDir('animal-store-tls-')
    certs = dir
    makeCertificate('first')
    makeCertificate('renewed')
  })

  async function serveHttps() {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    copyFileSync(join(certs, 'first.crt'), join(dir, 'cert.pem'))
    copyFileSync(join(certs, 'first.key'), join(dir, 'key.pem'))
    const server = await startServer({
      DATABASE_PATH: join(dir, 'store.sqlite'),
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
    })
    cleanups.push(() => server.stop())
    return { server, dir }
  }

  test('serves HTTPS only, with the CA trusted, and Strict-Transport-Security on every response', async () => {
    const { server } = await serveHttps()
    expect(server.url).toStartWith('https://127.0.0.1:')
    for (const path of ['/health', '/v1/pets', '/docs', '/nowhere']) {
      const answer = await getTrusting(`${server.url}${path}`, 'first')
      expect(answer).toEqual({ status: expect.any(Number), hsts: 'max-age=31536000' })
    }
    expect(await getTrusting(`${server.url}/v1/pets`, 'first')).toMatchObject({ status: 401 })
    // Plain HTTP on the same port gets no answer, and an untrusted certificate is refused by the client.
    const plain = await fetch(`${server.url.replace('https:', 'http:')}/health`).then(
      (response) => response.status,
      () => 'no answer',
    )
    expect(plain).toBe('no answer')
    expect(await getTrusting(`${server.url}/health`, 'renewed')).toBeString()
  })

  test('offers TLS 1.3 and, on TLS 1.2, forward-secret AEAD suites only: no CBC, no SHA-1, no TLS 1.1', async () => {
    const { server } = await serveHttps()
    const port = new URL(server.url).port
    /** What openssl s_client agrees with the server on, or why not. */
    const handshake = (...options: string[]) => {
      const client = Bun.spawnSync(['openssl', 's_client', '-connect', `127.0.0.1:${port}`, ...options], {
        stdin: new TextEncoder().encode(''),
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const said = `${client.stdout}${client.stderr}`
      const cipher = /Cipher is (\S+)/.exec(said)?.[1]
      return cipher === undefined || cipher === '(NONE)' ? 'refused' : cipher
    }
    expect(handshake('-tls1_3')).toMatch(/^TLS_(AES|CHACHA20)/)
    expect(handshake('-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toBe('ECDHE-ECDSA-AES128-GCM-SHA256')
    expect(handshake('-tls1_2', '-cipher', 'ECDHE-ECDSA-CHACHA20-POLY1305')).toBe('ECDHE-ECDSA-CHACHA20-POLY1305')
    for (const cbc of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-ECDSA-AES128-SHA256'])
      expect({ cbc, agreed: handshake('-tls1_2', '-cipher', cbc) }).toEqual({ cbc, agreed: 'refused' })
    expect(handshake('-tls1_1', '-cipher', 'ALL:@SECLEVEL=0')).toBe('refused')
  })

  test('on SIGHUP reads the files again: new connections get the renewed certificate, without a restart', async () => {
    const { server, dir } = await serveHttps()
    copyFileSync(join(certs, 'renewed.crt'), join(dir, 'cert.pem'))
    copyFileSync(join(certs, 'renewed.key'), join(dir, 'key.pem'))
    server.proc.kill('SIGHUP')
    const served = () => getTrusting(`${server.url}/health`, 'renewed').then((answer) => JSON.stringify(answer))
    expect(await eventually(served, JSON.stringify({ status: 200, hsts: 'max-age=31536000' }), 5000)).toBe(
      JSON.stringify({ status: 200, hsts: 'max-age=31536000' }),
    )
    expect(typeof (await getTrusting(`${server.url}/health`, 'first'))).toBe('string')
    expect(server.stderr()).toContain('SIGHUP: certificate and key read again')
    // A broken renewal keeps the certificate in use, and says why.
    writeFileSync(join(dir, 'key.pem'), 'not a key')
    server.proc.kill('SIGHUP')
    await eventually(async () => server.stderr().includes('SIGHUP: kept the certificate in use'), true, 5000)
    expect(server.stderr()).toContain('SIGHUP: kept the certificate in use: TLS_KEY_FILE')
    expect(await getTrusting(`${server.url}/health`, 'renewed')).toEqual({ status: 200, hsts: 'max-age=31536000' })
    expect(await server.stop()).toBe(0)
  })

  test('one file without the other, an unreadable file or a key of another certificate: exit 2 naming the variable', async () => {
    const { dir, cleanup } = tempDir()
    cleanups.push(cleanup)
    const base = { DATABASE_PATH: join(dir, 'store.sqlite'), PORT: '0', HOST: '127.0.0.1' }
    const cert = join(certs, 'first.crt')
    for (const [env, message] of [
      [{ TLS_CERT_FILE: cert }, /TLS_KEY_FILE: must be set with TLS_CERT_FILE/],
      [{ TLS_KEY_FILE: join(certs, 'first.key') }, /TLS_CERT_FILE: must be set with TLS_KEY_FILE/],
      [
        { TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: join(certs, 'first.key') },
        /TLS_CERT_FILE: cannot read/,
      ],
      [
        { TLS_CERT_FILE: cert, TLS_KEY_FILE: join(certs, 'renewed.key') },
        /TLS_CERT_FILE: .* are not a certificate and its key/,
      ],
    ] as const) {
      const result = await runCli(['serve'], { ...base, ...env })
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 2,
        stderr: expect.stringMatching(new RegExp(`^Configuration error: ${message.source}`, 'm')),
      })
    }
  })
})

import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../src/config'

describe('loadConfig', () => {
  test('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      databasePath: './data/animal-store.sqlite',
      publicUrl: undefined,
      trustProxy: false,
      logLevel: 'info',
      synchronous: 'full',
      idleTimeoutSeconds: 10,
      databaseUrl: undefined,
      databasePoolSize: 10,
      redisUrl: undefined,
      redisFailureMode: 'open',
      redisKeyPrefix: 'animal-store:rl',
      ipv6Prefix: 64,
      anonSubjectsMax: 1_000_000,
      corsOrigins: undefined,
      adminPort: undefined,
      adminHost: '127.0.0.1',
      tls: undefined,
    })
  })

  test('is frozen', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true)
  })

  test.each(['abc', '-1', '65536', '80.5', ' 80'])('refuses PORT=%s naming the variable', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(ConfigError)
    expect(() => loadConfig({ PORT: port })).toThrow(/^PORT: /)
  })

  test.each([
    ['https://pets.example', 'https://pets.example'],
    ['https://pets.example/', 'https://pets.example'],
    ['https://pets.example/v1', 'https://pets.example'],
    ['https://pets.example/api/v1/', 'https://pets.example/api'],
  ])('normalises PUBLIC_URL=%s to %s', (value, expected) => {
    expect(loadConfig({ PUBLIC_URL: value }).publicUrl).toBe(expected)
  })

  test.each(['pets.example', 'ftp://pets.example', 'https://pets.example/?x=1'])('refuses PUBLIC_URL=%s', (value) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/^PUBLIC_URL: /)
  })

  test.each([
    ['on', true],
    ['TRUE', true],
    ['1', true],
    ['off', false],
    ['0', false],
  ])('reads TRUST_PROXY=%s as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toBe(expected)
  })

  test('refuses an unclear TRUST_PROXY', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(/^TRUST_PROXY: /)
  })

  test('refuses an unknown LOG_LEVEL and SQLITE_SYNCHRONOUS', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL: /)
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' })).toThrow(/^SQLITE_SYNCHRONOUS: /)
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'FULL' }).synchronous).toBe('full')
  })

  test('refuses an empty DATABASE_PATH', () => {
    expect(() => loadConfig({ DATABASE_PATH: ' ' })).toThrow(/^DATABASE_PATH: /)
  })

  test('reads the scale-out settings: DATABASE_URL, REDIS_URL, REDIS_FAILURE_MODE, REDIS_KEY_PREFIX', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://app:pw@db:5432/pets',
      REDIS_URL: 'redis://cache:6379',
      REDIS_FAILURE_MODE: 'Closed',
      REDIS_KEY_PREFIX: 'staging:rl',
      DATABASE_POOL_SIZE: '4',
    })
    expect(config).toMatchObject({
      databaseUrl: 'postgres://app:pw@db:5432/pets',
      databasePoolSize: 4,
      redisUrl: 'redis://cache:6379',
      redisFailureMode: 'closed',
      redisKeyPrefix: 'staging:rl',
    })
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/pets', REDIS_URL: 'rediss://cache' }).databaseUrl).toBe(
      'postgresql://db/pets',
    )
  })

  test.each([
    ['DATABASE_URL', 'mysql://db/pets'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://cache'],
    ['REDIS_URL', 'redis://'],
    ['REDIS_FAILURE_MODE', 'sometimes'],
    ['REDIS_KEY_PREFIX', ' '],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '101'],
    ['IPV6_PREFIX', '31'],
    ['IPV6_PREFIX', '129'],
    ['IPV6_PREFIX', '/64'],
    ['ANON_SUBJECTS_MAX', '999'],
    ['ANON_SUBJECTS_MAX', '10000001'],
    ['ANON_SUBJECTS_MAX', '1e6'],
  ])('refuses %s=%s naming the variable', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable}: `))
  })

  test('reads IPV6_PREFIX and ANON_SUBJECTS_MAX', () => {
    expect(loadConfig({ IPV6_PREFIX: '48', ANON_SUBJECTS_MAX: '5000000' })).toMatchObject({
      ipv6Prefix: 48,
      anonSubjectsMax: 5_000_000,
    })
  })

  test('refuses DATABASE_URL together with DATABASE_PATH: one store or the other', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/pets', DATABASE_PATH: 'x.sqlite' })).toThrow(
      /^DATABASE_URL: .*not both/,
    )
  })
  test('reads CORS_ORIGINS: every origin, or a list made canonical as a browser sends Origin', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*')
    expect(loadConfig({ CORS_ORIGINS: '' }).corsOrigins).toBeUndefined()
    expect(
      loadConfig({ CORS_ORIGINS: 'https://Shop.Example, http://localhost:5173/,https://a.example:443' }).corsOrigins,
    ).toEqual(['https://shop.example', 'http://localhost:5173', 'https://a.example'])
  })

  test.each([
    ['*, https://shop.example', /give it alone/],
    [' , ', /comma-separated list/],
    ['shop.example', /not an origin/],
    ['localhost:5173', /must start with http/],
    ['ftp://shop.example', /must start with http/],
    ['https://shop.example/app', /origin only/],
    ['https://shop.example?x=1', /origin only/],
    ['https://user@shop.example', /origin only/],
    ['null', /not an origin/],
  ])('refuses CORS_ORIGINS=%s naming the variable', (value, why) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(/^CORS_ORIGINS: /)
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(why)
  })
  test('reads ADMIN_PORT and ADMIN_HOST; refuses a bad port, or the public port again', () => {
    expect(loadConfig({ ADMIN_PORT: '9464', ADMIN_HOST: '0.0.0.0' })).toMatchObject({
      adminPort: 9464,
      adminHost: '0.0.0.0',
    })
    expect(loadConfig({ ADMIN_PORT: '0', PORT: '0' }).adminPort).toBe(0)
    for (const value of ['x', '-1', '65536'])
      expect(() => loadConfig({ ADMIN_PORT: value })).toThrow(/^ADMIN_PORT: must be an integer from 0 to 65535/)
    expect(() => loadConfig({ ADMIN_PORT: '3000' })).toThrow(/^ADMIN_PORT: must differ from PORT/)
    expect(() => loadConfig({ ADMIN_PORT: '8080', PORT: '8080' })).toThrow(/^ADMIN_PORT: must differ from PORT/)
    expect(() => loadConfig({ ADMIN_PORT: '9464', ADMIN_HOST: ' ' })).toThrow(/^ADMIN_HOST: /)
  })

  test('reads TLS_CERT_FILE and TLS_KEY_FILE together; one alone names the other', () => {
    expect(loadConfig({ TLS_CERT_FILE: 'c.pem', TLS_KEY_FILE: 'k.pem' }).tls).toEqual({
      certFile: 'c.pem',
      keyFile: 'k.pem',
    })
    expect(() => loadConfig({ TLS_CERT_FILE: 'c.pem' })).toThrow(/^TLS_KEY_FILE: must be set with TLS_CERT_FILE/)
    expect(() => loadConfig({ TLS_KEY_FILE: 'k.pem' })).toThrow(/^TLS_CERT_FILE: must be set with TLS_KEY_FILE/)
  })
})

import { makeTestApp } from './test/helpers'
const { app, call } = await makeTestApp()
await call('POST', '/v1/pets', { body: { name: 'a', categoryId: 1 } })
await call('GET', '/v1/pets')
const h: any = (app as any).router.history
for (const r of h) if (r.method === 'POST' || (r.method === 'GET' && r.path === '/v1/pets')) console.log(r.method, r.path, '\n', (r.composed ?? r.compile()).toString().slice(0, 3000), '\n-----')

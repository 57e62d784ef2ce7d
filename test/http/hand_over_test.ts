import { describe, expect, test } from 'bun:test'
import { HandOver } from '../../src/http/hand_over'

const request = () => new Request('http://localhost/v1/pets')

describe('HandOver', () => {
  test('a hook run inside the handle takes the value at once, and only once', () => {
    const handOver = new HandOver<string>()
    const arrived = request()
    const taken: unknown[] = []
    const answer = new Response('ok')
    expect(
      handOver.hand(arrived, 'value', (handed) => {
        taken.push(handOver.take(handed), handOver.take(handed))
        return answer
      }),
    ).toBe(answer)
    expect(taken).toEqual(['value', undefined])
    // Nothing is kept for it afterwards.
    expect(handOver.take(arrived)).toBeUndefined()
  })

  test('a hook run after the handle has waited finds the value by its request, once', async () => {
    const handOver = new HandOver<string>()
    const [first, second] = [request(), request()]
    const later = (handed: Request) => Bun.sleep(1).then(() => new Response(handOver.take(handed) ?? 'nothing'))
    const answers = [handOver.hand(first, 'first', later), handOver.hand(second, 'second', later)]
    expect(await Promise.all(answers.map(async (answer) => (await answer).text()))).toEqual(['first', 'second'])
    expect(handOver.take(first)).toBeUndefined()
  })

  test('a request it was not handed gets nothing', () => {
    const handOver = new HandOver<string>()
    expect(handOver.take(request())).toBeUndefined()
    handOver.hand(request(), 'value', (handed) => new Response(handed.url))
    expect(handOver.take(request())).toBeUndefined()
  })
})

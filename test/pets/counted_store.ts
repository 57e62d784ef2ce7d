import type { PetListQuery, PetStore } from '../../src/pets/store'

/** A SQLite store that counts the pages it is asked for. */
export function counted(store: PetStore) {
  const counter = { lists: 0 }
  const wrapped: PetStore = {
    list: (query: PetListQuery) => {
      counter.lists++
      return store.list(query)
    },
    create: (pet, claim) => store.create(pet, claim),
    get: (id) => store.get(id),
    update: (id, changes, precondition) => store.update(id, changes, precondition),
    delete: (id, precondition) => store.delete(id, precondition),
    inventory: () => store.inventory(),
    answers: () => store.answers(),
  }
  return { wrapped, counter }
}

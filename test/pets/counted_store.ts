import type { PetListQuery, PetStore } from '../../src/pets/store'

/** `store` with its `list` replaced by `list`; every other call passed through. */
export function withList(store: PetStore, list: PetStore['list']): PetStore {
  return {
    list,
    create: (pet, claim) => store.create(pet, claim),
    get: (id) => store.get(id),
    update: (id, changes, precondition) => store.update(id, changes, precondition),
    delete: (id, precondition) => store.delete(id, precondition),
    inventory: () => store.inventory(),
    answers: () => store.answers(),
  }
}

/** A store that counts the pages it is asked for. */
export function counted(store: PetStore) {
  const counter = { lists: 0 }
  const wrapped = withList(store, (query: PetListQuery) => {
    counter.lists++
    return store.list(query)
  })
  return { wrapped, counter }
}

import { API_PREFIX } from '../http/url'

/** Where the pets are in the API: the list and create; each pet at `PETS_PATH/{petId}`. */
export const PETS_PATH = `${API_PREFIX}/pets`

/** Where the inventory of the store is. */
export const INVENTORY_PATH = `${API_PREFIX}/store/inventory`

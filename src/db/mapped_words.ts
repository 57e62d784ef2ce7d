import { dlopen, FFIType, type Pointer, toArrayBuffer } from 'bun:ffi'
import { fstatSync } from 'node:fs'

/** mmap's protection and flags, the same on Linux and macOS: read only, shared with every process that maps the file. */
const PROT_READ = 1
const MAP_SHARED = 1

/** The C library that holds mmap, on the platforms where its name is known. */
const C_LIBRARY: Partial<Record<NodeJS.Platform, string>> = { linux: 'libc.so.6', darwin: 'libSystem.B.dylib' }

/** Above any address a user-space mapping has: mmap's MAP_FAILED, (void *) -1, comes back as 2^64 - 1. */
const HIGHEST_ADDRESS = 2 ** 52

/** A file's first words, mapped shared: each read sees the file as it is now, with no system call. */
export interface MappedWords {
  readonly words: Uint32Array
  /** Lets go of the mapping; `words` must not be read after. */
  unmap(): void
}

/** mmap and munmap of the C library, once asked for; null where they cannot be had. */
let libc: ReturnType<typeof openLibc> | null | undefined

function openLibc() {
  const name = C_LIBRARY[process.platform]
  if (name === undefined) return null
  return dlopen(name, {
    mmap: {
      args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64],
      returns: FFIType.ptr,
    },
    munmap: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
  }).symbols
}

/**
 * The first `count` 32-bit words of the file open on `fd`, mapped read only
 * and shared (`mmap` through bun:ffi), or undefined where that cannot be
 * done (no known C library, bun:ffi unavailable, mmap refused, a file
 * shorter than the words). The mapping is made on `fd` itself, which the
 * caller keeps open: no descriptor of the file is opened or closed here
 * (closing one drops every POSIX lock the process holds on the file).
 */
export function mapWords(fd: number, count: number): MappedWords | undefined {
  const bytes = count * Uint32Array.BYTES_PER_ELEMENT
  if (fstatSync(fd).size < bytes) return undefined
  if (libc === undefined) {
    try {
      libc = openLibc()
    } catch {
      libc = null
    }
  }
  if (libc === null) return undefined
  const address = libc.mmap(null, bytes, PROT_READ, MAP_SHARED, fd, 0)
  if (address === null || address <= 0 || address >= HIGHEST_ADDRESS) return undefined
  const { munmap } = libc
  return {
    words: new Uint32Array(toArrayBuffer(address, 0, bytes)),
    unmap: () => munmap(address as Pointer, bytes),
  }
}

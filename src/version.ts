import packageJson from '../package.json' with { type: 'json' }

/** The service's version, from package.json: `--version`, the metrics and the OpenAPI document's `info.version`. */
export const VERSION: string = packageJson.version

// Types of bin/supported-node.js (plain JavaScript: it runs on unsupported Node versions, before any build).
export declare const MINIMUM: readonly [number, number]
export declare const BROUGHT: string
export declare function isSupported(version: string): boolean
export declare function broughtNode(): string
export declare function bring(log?: (line: string) => void): string
export declare function delegateIfUnsupported(
  script: string,
  args: readonly string[],
  execArgv?: readonly string[],
): boolean
export declare function fetchNode(version: string, home: string): string

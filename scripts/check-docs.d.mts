// Types of scripts/check-docs.mjs, for the tests that import it.
export declare const WITHIN_TWO_CLICKS: readonly (readonly [string, string])[]
export declare function slug(text: string): string
export declare function checkDocs(root: string, required?: readonly (readonly [string, string])[]): string[]

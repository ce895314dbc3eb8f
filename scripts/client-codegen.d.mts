/** Types of scripts/client-codegen.mjs, for the TypeScript test that imports it. */
export declare const GENERATION_ENV: Readonly<Record<string, string>>
export declare const DOCUMENT_PATH: string
export declare const TYPES_PATH: string
export declare function renderDocument(doc: unknown): string
export declare function renderTypes(doc: unknown): Promise<string>

// Types of build-web.mjs for the TypeScript that imports it (the browser tests).
export declare const BUNDLES: ReadonlyArray<{ readonly entry: string; readonly outfile: string }>
export declare function buildWeb(options?: { readonly force?: boolean }): Promise<Array<string>>
export declare const WEB_COMPONENTS: ReadonlyArray<string>

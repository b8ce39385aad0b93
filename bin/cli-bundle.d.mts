/** Types of bin/cli-bundle.mjs (plain JavaScript so the bin runs without tsx). */
export declare const ROOT: string;
export declare const ENTRY: string;
export declare function bundlePaths(root?: string): { dir: string; bundle: string; inputs: string };
export declare function isFresh(root?: string, command?: string): boolean;
export declare function buildBundle(root?: string): Promise<string>;
export declare function currentBundle(root?: string, command?: string): Promise<string | null>;

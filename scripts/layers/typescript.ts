/**
 * The TypeScript compiler, loaded with `require`: imported as an ES module, Node first scans
 * its 9 MB CommonJS file for export names (about 0.4 s of CPU per run). `TS` is its types.
 */
import { createRequire } from 'node:module';
import type * as TS from 'typescript';

const ts: typeof TS = createRequire(import.meta.url)('typescript');
export default ts;
export type { TS };

/** A type-checking program over `files` (absolute) as the tree's own imports resolve (`.ts` specifiers, bundler resolution). */
export function sourceProgram(files: string[]): TS.Program {
  return ts.createProgram(files, {
    allowImportingTsExtensions: true,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
}

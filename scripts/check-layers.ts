/**
 * Layer rules (docs/architecture.md, "How the code is laid out"): dependencies point
 * down, core is pure, the UI reaches workers through their typed APIs. Checks the real
 * import graph (`scripts/layers/`); exits 1 listing every violation as `file:line: [rule] …`.
 * `tsx scripts/check-layers.ts [root]` (default: the current folder).
 */
import { checkLayers, formatViolation } from './layers/check.ts';

const root = process.argv[2] ?? process.cwd();
// The checker's own violating samples (and other tests' sample trees) must not count.
const violations = checkLayers(root, { skip: ['tests/fixtures'] });
if (violations.length) {
  console.error(`Layer rules broken (${violations.length}):\n${violations.map(formatViolation).join('\n')}`);
  process.exit(1);
}
console.log('layer rules: ok');

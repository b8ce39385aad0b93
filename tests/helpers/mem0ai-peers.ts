/**
 * mem0ai/oss imports every vendor SDK it can talk to when it loads; the tests inline it
 * (vitest.config.ts) and stub the ones not installed with `vi.doMock`, from the same list the
 * mem0ai target's Node resolve hook uses (MEM0AI_UNUSED_PEERS). A stub throws when called.
 */
import { vi } from 'vitest';
import { MEM0AI_UNUSED_PEERS } from '../../src/systems/optimize/mem0ai-target.node.ts';

function unused(): never {
  throw new Error('provider not used in this test');
}

/** Registers the stubs; call before mem0ai/oss is imported. */
export function stubMem0aiPeers(): void {
  process.env.MEM0_TELEMETRY = 'false';
  for (const [name, exports] of Object.entries(MEM0AI_UNUSED_PEERS)) {
    const module = Object.fromEntries(
      Object.entries(exports).map(([k, v]) => [
        k,
        v === 'fn' ? unused : Object.fromEntries(Object.keys(v).map((p) => [p, unused])),
      ]),
    );
    vi.doMock(name, () => module);
  }
}

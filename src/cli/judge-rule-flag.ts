/** `--judge-rule` of `memtrace run` and `memtrace make-bench`: the offline judge's rule. */
import { JUDGE_RULES } from '../systems/index.ts';
import { flags } from './command.ts';

/** `--judge-rule`: the offline judge's rule, also the carrying rule of the labels. */
export const JUDGE_RULE_FLAG = flags({
  'judge-rule': {
    type: 'string',
    default: 'offline',
    choices: JUDGE_RULES,
    help: "the offline judge's rule (offline: containment, token F1 or long-answer support); labels use the same rule for carrying",
  },
});

/** `--judge-rule` of `memtrace run` and `memtrace make-bench`: the offline judge's rule. */
import { isJudgeRule, JUDGE_RULES, type JudgeRule } from '../systems/index.ts';
import type { Values } from './command.ts';
import { CliError } from './io.ts';

/** `--judge-rule`: the offline judge's rule, also the carrying rule of the labels. */
export const JUDGE_RULE_FLAG = {
  type: 'string',
  default: 'offline',
  value: JUDGE_RULES.join('|'),
  help: "the offline judge's rule (offline: containment, token F1 or long-answer support); labels use the same rule for carrying",
} as const;

/** The `--judge-rule` value, checked. */
export function judgeRuleOf(values: Values): JudgeRule {
  const rule = values['judge-rule'] ?? 'offline';
  if (!isJudgeRule(rule)) throw new CliError(`--judge-rule must be one of ${JUDGE_RULES.join('|')}`, 2);
  return rule;
}

export { agreement, DEFAULT_MAX_PAIRS, type DisputedCase, pairAgreement } from './agreement.ts';
export { cohenKappa, fleissKappa } from './kappa.ts';

export * from './agreement.ts';
export * from './kappa.ts';

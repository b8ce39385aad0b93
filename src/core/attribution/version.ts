/** The evidence-flow attributor's version, stored with every verdict it makes. */

/**
 * Changes whenever the attributor's decisions may change: a stored verdict carrying another
 * version (or none) was made by older code and is re-attributed or shown as stale.
 */
export const ATTRIBUTOR_VERSION = 'evidence-flow@2';

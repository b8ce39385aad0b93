/** The deterministic attributor's version, stored with every verdict it makes. */

/**
 * Changes whenever the attributor's decisions or confidences may change (@2: dates read as
 * dates under a learned judge, three-level calibration): a stored verdict carrying another
 * version (or none) was made by older code and is re-attributed or shown as stale.
 */
export const ATTRIBUTOR_VERSION = 'stage-walk@2';

/** The deterministic attributor's version, stored with every verdict it makes. */

/**
 * Changes whenever the attributor's decisions or confidences may change (@2: dates read as
 * dates under a learned judge, three-level calibration; @3: weekday answers and glued dates
 * read right, times without a year left unplaced, calibration refitted on a wider
 * fault-injected sample; @4: `copied-into-context` gone,
 * thresholds chosen with each kind of data weighing the same; @5: `whole-memory`, a short unit
 * read whole under a learned judge; @6: a retrieved item made of dated
 * records read record by record, as the store reads them; @7: a memory keeps an evidence message
 * when it can stand in for it under a share-of-words judge, and the calibration table is fitted on
 * every dev verdict; @8: a retrieval loss of a unit no question-time op read is the op's that chose
 * from the store, not a later rerank's; @9: a unit is not held to an answer word's form its message
 * never had, and the part of a message followed is found by lemma): a stored verdict carrying another version (or none) was
 * made by older code and is re-attributed or shown as stale.
 */
export const ATTRIBUTOR_VERSION = 'stage-walk@9';

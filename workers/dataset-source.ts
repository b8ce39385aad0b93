/** A data set file as the page hands it to a worker (a leaf module: api.ts and the services share it). */
import type { DatasetName } from '../src/systems/types.ts';

/** A data set file as picked by the person (read in the worker; nothing leaves the machine). */
export interface DatasetSource {
  /** The file's bytes (a File or Blob; crosses to the worker by reference). */
  blob: Blob;
  /** File name (names flattened LoCoMo files, `26.json` → `conv-26`, and RealMem personas). */
  name: string;
  /** Which loader reads it; default `auto` (detected from the file's shape). */
  dataset?: DatasetName | 'auto';
}

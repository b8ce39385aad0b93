/**
 * The systems worker's side of its port to the engine, the database's one writer: the import
 * path a run's trace is stored through and the optimisation loop's runs, asked of the engine
 * (`SystemsStoreApi`) once the page has connected the two workers.
 */
import * as Comlink from 'comlink';
import './abort-transfer.ts';
import type { ImportApi, SystemsStoreApi } from './api.ts';
import type { OptimizeRunStore } from './optimize-service.ts';

export class EngineLink {
  #engine: Comlink.Remote<SystemsStoreApi> | null = null;

  /** Takes the port the page gave (its other end is served by `EngineApi.connectSystems`). */
  connect(port: MessagePort): void {
    this.#engine = Comlink.wrap<SystemsStoreApi>(port);
  }

  #connected(): Comlink.Remote<SystemsStoreApi> {
    if (!this.#engine) throw new Error('The systems worker is not connected to the engine.');
    return this.#engine;
  }

  /**
   * The engine's import: a run's document crosses once (structured clone, no JSON text to parse
   * back), its bytes by reference (a Blob); the engine builds the graph and keeps it open.
   */
  readonly importer: Pick<ImportApi, 'importFiles'> = {
    importFiles: (inputs, options, onProgress, signal) =>
      this.#connected().importFiles(inputs, options, onProgress && Comlink.proxy(onProgress), signal),
  };

  /** The optimisation runs, kept by the engine. */
  readonly runs: OptimizeRunStore = {
    optimizeRun: (id) => this.#connected().optimizeRun(id),
    startOptimizeRun: (request) => this.#connected().startOptimizeRun(request),
    saveOptimizeState: (id, state) => this.#connected().saveOptimizeState(id, state),
  };
}

/**
 * LLM settings state: provider profiles, keys (memory only unless "remember on this
 * device"), "test connection", the response-cache switch and the run's token totals.
 * Profiles are saved in `storage` without keys; a remembered key is saved apart from
 * them, so exports never carry it.
 */
import {
  type CacheStore,
  type ChatModel,
  type ChatResponse,
  createChatModel,
  emptyUsageTotals,
  exportSettings,
  type FetchLike,
  importSettings,
  isLlmError,
  PRESETS,
  type Preset,
  type ProviderProfile,
  ProviderProfileSchema,
  redact,
  UsageMeter,
  type UsageTotals,
  type WebLLMEngine,
} from '../../core/llm/index.ts';

/** The slice of `localStorage` used (injected: tests and SSR pass their own). */
interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

interface TestResult {
  ok: boolean;
  ms: number;
  text?: string;
  model?: string;
  usage?: ChatResponse['usage'];
  error?: { kind: string; message: string };
}

interface LlmSettingsDeps {
  storage?: KeyValueStorage;
  fetch?: FetchLike;
  /** The response cache used when the person turns caching on. */
  cache?: CacheStore;
  /** The loaded in-browser engine for a WebLLM profile, if any. */
  engineFor?: (profile: ProviderProfile) => WebLLMEngine | undefined;
  now?: () => number;
}

const PROFILES_KEY = 'memtrace.llm.profiles';
const ACTIVE_KEY = 'memtrace.llm.active';
const CACHE_KEY = 'memtrace.llm.cache';
const keyItem = (id: string) => `memtrace.llm.key.${id}`;

export class LlmSettings {
  #profiles = $state<ProviderProfile[]>([]);
  #keys = $state<Record<string, string>>({});
  #activeId = $state<string | null>(null);
  #tests = $state<Record<string, TestResult | 'running'>>({});
  #totals = $state<UsageTotals>(emptyUsageTotals());
  #cacheOn = $state(false);
  readonly meter = new UsageMeter();
  readonly #deps: LlmSettingsDeps;

  constructor(deps: LlmSettingsDeps = {}) {
    this.#deps = deps;
    this.meter.subscribe(() => {
      this.#totals = this.meter.totals();
    });
    this.#load();
  }

  get profiles(): readonly ProviderProfile[] {
    return this.#profiles;
  }
  get active(): ProviderProfile | undefined {
    return this.#profiles.find((p) => p.id === this.#activeId) ?? this.#profiles[0];
  }
  /** Tokens used in this session (every call made through `chatModel()` or "test connection"). */
  get usage(): UsageTotals {
    return this.#totals;
  }
  get cacheEnabled(): boolean {
    return this.#cacheOn;
  }
  set cacheEnabled(on: boolean) {
    this.#cacheOn = on && !!this.#deps.cache;
    this.#deps.storage?.setItem(CACHE_KEY, this.#cacheOn ? '1' : '0');
  }
  get cacheAvailable(): boolean {
    return !!this.#deps.cache;
  }

  testResult(id: string): TestResult | 'running' | undefined {
    return this.#tests[id];
  }
  hasKey(id: string): boolean {
    return !!this.#keys[id];
  }

  select(id: string) {
    this.#activeId = id;
    this.#deps.storage?.setItem(ACTIVE_KEY, id);
  }

  addProfile(preset: Preset = PRESETS[0]): ProviderProfile {
    const n = this.#profiles.filter((p) => p.name.startsWith(preset.label)).length;
    const p = ProviderProfileSchema.parse({
      id: `p${(this.#deps.now ?? Date.now)().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
      name: n ? `${preset.label} ${n + 1}` : preset.label,
      kind: preset.kind,
      baseUrl: preset.baseUrl,
      model: preset.model,
    });
    this.#profiles = [...this.#profiles, p];
    this.select(p.id);
    this.#save();
    return p;
  }

  updateProfile(id: string, patch: Partial<Omit<ProviderProfile, 'id'>>) {
    this.#profiles = this.#profiles.map((p) =>
      p.id === id ? ProviderProfileSchema.parse({ ...p, ...patch, id }) : p,
    );
    if ('rememberKey' in patch) this.#storeKey(id);
    this.#save();
  }

  removeProfile(id: string) {
    this.#profiles = this.#profiles.filter((p) => p.id !== id);
    const { [id]: _gone, ...rest } = this.#keys;
    this.#keys = rest;
    this.#deps.storage?.removeItem(keyItem(id));
    if (this.#activeId === id) this.#activeId = this.#profiles[0]?.id ?? null;
    this.#save();
  }

  /** Keep `key` in memory; also in storage only when the profile says "remember on this device". */
  setKey(id: string, key: string) {
    this.#keys = { ...this.#keys, [id]: key.trim() };
    this.#storeKey(id);
  }

  /** The ChatModel for a profile (default: the active one): robust, metered, cached when on. */
  chatModel(id?: string, label?: string): ChatModel {
    const p = id ? this.#profiles.find((x) => x.id === id) : this.active;
    if (!p) throw new Error('No LLM provider is set up: add one in the LLM settings.');
    return createChatModel(p, {
      apiKey: this.#keys[p.id],
      fetch: this.#deps.fetch,
      browser: true,
      meter: this.meter,
      label,
      cache: this.#cacheOn ? this.#deps.cache : undefined,
      engine: p.kind === 'webllm' ? this.#deps.engineFor?.(p) : undefined,
    });
  }

  /** One short real call; records tokens like any other call. Never cached, no retries. */
  async testConnection(id: string): Promise<TestResult> {
    const p = this.#profiles.find((x) => x.id === id);
    if (!p) throw new Error(`no profile ${id}`);
    this.#tests = { ...this.#tests, [id]: 'running' };
    const now = this.#deps.now ?? Date.now;
    const t0 = now();
    let result: TestResult;
    try {
      const model = createChatModel(p, {
        apiKey: this.#keys[p.id],
        fetch: this.#deps.fetch,
        browser: true,
        meter: this.meter,
        label: 'test connection',
        robust: { retries: 0, timeoutMs: p.timeoutMs ?? 30_000 },
        engine: p.kind === 'webllm' ? this.#deps.engineFor?.(p) : undefined,
      });
      const r = await model.complete({
        messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
        maxTokens: 16,
        temperature: 0,
      });
      result = { ok: true, ms: now() - t0, text: r.text.slice(0, 200), model: r.model, usage: r.usage };
    } catch (e) {
      const secrets = Object.values(this.#keys);
      const message = redact(e instanceof Error ? e.message : String(e), secrets);
      result = { ok: false, ms: now() - t0, error: { kind: isLlmError(e) ? e.kind : 'error', message } };
    }
    this.#tests = { ...this.#tests, [id]: result };
    return result;
  }

  exportSettings(): string {
    return exportSettings(this.#profiles, Object.values(this.#keys));
  }

  /** Adds the profiles of an export (keys are never in one: enter them again). */
  importSettings(text: string): string[] {
    const { profiles, problems } = importSettings(text);
    const known = new Set(this.#profiles.map((p) => p.id));
    this.#profiles = [...this.#profiles, ...profiles.filter((p) => !known.has(p.id))];
    this.#save();
    return problems;
  }

  #storeKey(id: string) {
    const s = this.#deps.storage;
    if (!s) return;
    const p = this.#profiles.find((x) => x.id === id);
    const key = this.#keys[id];
    if (p?.rememberKey && key) s.setItem(keyItem(id), key);
    else s.removeItem(keyItem(id));
  }

  #save() {
    this.#deps.storage?.setItem(PROFILES_KEY, exportSettings(this.#profiles, Object.values(this.#keys)));
  }

  #load() {
    const s = this.#deps.storage;
    if (!s) return;
    const text = s.getItem(PROFILES_KEY);
    if (text) this.#profiles = importSettings(text).profiles;
    const keys: Record<string, string> = {};
    for (const p of this.#profiles) {
      const k = p.rememberKey ? s.getItem(keyItem(p.id)) : null;
      if (k) keys[p.id] = k;
    }
    this.#keys = keys;
    this.#activeId = s.getItem(ACTIVE_KEY);
    this.#cacheOn = s.getItem(CACHE_KEY) === '1' && !!this.#deps.cache;
  }
}

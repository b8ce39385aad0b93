/** Light / dark theme, remembered in localStorage (read before first paint). */
import { getContext, setContext } from 'svelte';

type ThemeMode = 'light' | 'dark';
const STORAGE_KEY = 'memtrace-theme';

class Theme {
  #mode = $state<ThemeMode>('light');

  constructor(private readonly win: Window) {
    let saved: string | null = null;
    try {
      saved = win.localStorage.getItem(STORAGE_KEY);
    } catch {
      // storage may be unavailable (privacy mode): fall back to the system preference
    }
    this.#mode =
      saved === 'dark' || saved === 'light'
        ? saved
        : win.matchMedia?.('(prefers-color-scheme: dark)').matches
          ? 'dark'
          : 'light';
  }

  get mode(): ThemeMode {
    return this.#mode;
  }

  toggle(): void {
    this.#mode = this.#mode === 'dark' ? 'light' : 'dark';
    try {
      this.win.localStorage.setItem(STORAGE_KEY, this.#mode);
    } catch {
      // not remembered; still applied
    }
  }
}

const KEY = Symbol('theme');
export function setupTheme(win: Window): Theme {
  return setContext(KEY, new Theme(win));
}
export function useTheme(): Theme {
  return getContext<Theme>(KEY);
}

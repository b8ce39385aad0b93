import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

// A static single-page app: `vite build` writes dist/, deployable on any static host.
export default defineConfig({
  plugins: [svelte()],
  base: './',
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  server: { fs: { allow: ['.', '../shared'] } },
});

// Test page: the LLM settings panel mounted the way the app will mount it (setupLlm in a root component).
import { mount } from 'svelte';
import Root from './Root.svelte';

mount(Root, { target: document.getElementById('app')! });

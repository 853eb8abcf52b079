// Registers <headlab-query-key-canvas> (guarded: a page may load the bundle twice).
import { HeadlabQueryKeyCanvas } from './headlab-query-key-canvas.js';

if (!customElements.get('headlab-query-key-canvas')) customElements.define('headlab-query-key-canvas', HeadlabQueryKeyCanvas);

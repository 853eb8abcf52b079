// Types of web/errors.js, declared once in web/headlab-core.d.ts.
export { HeadlabError } from './headlab-core.js';

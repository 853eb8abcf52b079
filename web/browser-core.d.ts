import type { FeatureRecoveryCore, HeadlabCore, MaxDigitCore, TransformerCore } from './headlab-core.js';
/** What getCore() resolves to: the core's functions (HeadlabCore); a name it lacks reads as unknown. */
export type HeadlabCoreApi = HeadlabCore & { [name: string]: unknown };
/** The page's headlab_core instance (attention, projection edits); its .wasm is fetched from the bundle's own folder. */
export function getCore(): Promise<HeadlabCoreApi>;
/** The page's headlab_feature_recovery instance (the feature-recovery experiment), loaded (JS and .wasm) only when first asked for. */
export function getFeatureRecoveryCore(): Promise<FeatureRecoveryCore>;
/** The page's headlab_max_digit instance, loaded (JS and .wasm) only when first asked for. */
export function getMaxDigitCore(): Promise<MaxDigitCore>;
/** The page's headlab_transformer instance (your own attention-only transformer), loaded only when first asked for. */
export function getTransformerCore(): Promise<TransformerCore>;
/** Starts compiling headlab_transformer.wasm here, to hand to workers, without instantiating it. */
export function compileTransformerModule(): void;
/** The compiled .wasm modules this realm has loaded or is loading (what a page posts to its worker). */
export function compiledModules(): Promise<{
  core?: WebAssembly.Module;
  'feature-recovery'?: WebAssembly.Module;
  'max-digit'?: WebAssembly.Module;
  transformer?: WebAssembly.Module;
}>;
/** Uses compiled modules from another realm (the worker gets the page's) instead of downloading them. */
export function useCompiledModules(modules?: {
  core?: WebAssembly.Module;
  'feature-recovery'?: WebAssembly.Module;
  'max-digit'?: WebAssembly.Module;
  transformer?: WebAssembly.Module;
}): void;

/**
 * Node's built-in modules, loaded when first used. A static `import … from 'node:http'` (or
 * `node:crypto`, `node:util`) costs tens of milliseconds on Node 24 — the ESM facade reads every
 * export, which for `node:http` loads fetch's internals — against a few through getBuiltinModule
 * (Node ≥ 20.16). A command that never needs a module never pays for it.
 */
interface Builtins {
  'node:http': typeof import('node:http');
  'node:https': typeof import('node:https');
  'node:crypto': typeof import('node:crypto');
  'node:util': typeof import('node:util');
}

export function builtin<N extends keyof Builtins>(name: N): Builtins[N] {
  // Node 20 before 20.16 has no getBuiltinModule; the bundle is CommonJS, so `require` is there.
  return (process.getBuiltinModule?.(name) ?? require(name)) as Builtins[N];
}

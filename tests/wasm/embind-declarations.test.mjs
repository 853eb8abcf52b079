// The raw embind modules against their declarations (web/embind.d.ts, reached through each
// loader's declaration web/wasm-*-module.d.ts), both ways: every function, class and class method
// a module registers is declared, with embind's argument count, and every member declared exists
// in the instantiated module (a function with the declared count of arguments, a class that
// constructs with its declared count). embind keeps argCount on each function and method it
// registers; Emscripten's own runtime functions have none, so they are required only when declared.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import ts from 'typescript';
import { root, wasmDir } from './helpers.mjs';

/** Each module's loader declaration (the tsconfig path its bundler alias resolves to). */
const LOADERS = {
  headlab_core: 'web/wasm-module.d.ts',
  headlab_feature_recovery: 'web/wasm-feature-recovery-module.d.ts',
  headlab_max_digit: 'web/wasm-max-digit-module.d.ts',
  headlab_transformer: 'web/wasm-transformer-module.d.ts',
};

const program = ts.createProgram(
  Object.values(LOADERS).map((f) => path.join(root, f)),
  { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] },
);
const checker = program.getTypeChecker();

test('the declarations compile', () => {
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(problems, []);
});

/** Arguments a declared signature takes: its parameters, a rest tuple counted by its elements. */
function argumentCount(signature, at) {
  let n = 0;
  for (const p of signature.getParameters()) {
    const decl = p.valueDeclaration;
    const type = checker.getTypeOfSymbolAtLocation(p, at);
    if (decl && ts.isParameter(decl) && decl.dotDotDotToken) {
      assert.ok(checker.isTupleType(type), `${p.name}: a rest parameter must be a tuple (embind counts arguments)`);
      n += type.target.fixedLength;
      assert.equal(type.target.hasRestElement, false, `${p.name}: a rest tuple must have a fixed length`);
    } else n += 1;
  }
  return n;
}

/** The one call or construct signature of a declared member (embind registers one arity per name). */
function only(signatures, what) {
  assert.equal(signatures.length, 1, `${what}: declare one signature (embind registers one argument count)`);
  return signatures[0];
}

/**
 * What `file`'s default export resolves to, as { functions: {name: count}, classes: {name: {construct:
 * count, methods: {name: count}}}, values: [name] }; the handle's delete() (EmbindHandle) is embind's own.
 */
function declaredModule(file) {
  const source = program.getSourceFile(path.join(root, file));
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)).find((s) => s.name === 'default');
  assert.ok(exported, `${file} has a default export`);
  const factory = checker.getTypeOfSymbolAtLocation(exported, source);
  const promise = only(factory.getCallSignatures(), `${file} default`).getReturnType();
  const module = checker.getTypeArguments(promise)[0] ?? checker.getAwaitedType(promise);
  const out = { name: checker.typeToString(module), functions: {}, classes: {}, values: [] };
  for (const member of checker.getPropertiesOfType(module)) {
    const type = checker.getTypeOfSymbolAtLocation(member, source);
    if (type.getConstructSignatures().length) {
      const ctor = only(type.getConstructSignatures(), member.name);
      const methods = {};
      for (const m of checker.getPropertiesOfType(ctor.getReturnType())) {
        if (m.name === 'delete') continue;
        methods[m.name] = argumentCount(
          only(checker.getTypeOfSymbolAtLocation(m, source).getCallSignatures(), `${member.name}.${m.name}`),
          source,
        );
      }
      out.classes[member.name] = { construct: argumentCount(ctor, source), methods };
    } else if (type.getCallSignatures().length) {
      out.functions[member.name] = argumentCount(only(type.getCallSignatures(), member.name), source);
    } else out.values.push(member.name);
  }
  return out;
}

/** The instantiated module's embind registrations: functions and classes with their methods, by argCount. */
function registered(module) {
  const functions = {};
  const classes = {};
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== 'function') continue;
    if (typeof value.argCount === 'number') functions[name] = value.argCount;
    else if (value.prototype && typeof value.prototype.isAliasOf === 'function') {
      const methods = {};
      for (const m of Object.getOwnPropertyNames(value.prototype)) {
        if (m !== 'constructor') methods[m] = value.prototype[m].argCount;
      }
      classes[name] = methods;
    }
  }
  return { functions, classes };
}

for (const [name, loader] of Object.entries(LOADERS)) {
  test(`${name}: every embind registration is declared in ${loader} and every declared member exists`, async () => {
    const { default: factory } = await import(path.join(wasmDir, `${name}.mjs`));
    const module = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, `${name}.wasm`)) });
    const declared = declaredModule(loader);
    const live = registered(module);
    assert.ok(Object.keys(live.functions).includes('version'), `${name}: embind functions found (argCount)`);

    // Registered → declared, with embind's argument count.
    for (const [fn, count] of Object.entries(live.functions)) {
      assert.ok(fn in declared.functions, `${name}: ${fn} is registered but ${declared.name} does not declare it`);
      assert.equal(
        declared.functions[fn],
        count,
        `${name}: ${fn} takes ${count} arguments; ${declared.name} declares ${declared.functions[fn]}`,
      );
    }
    for (const [cls, methods] of Object.entries(live.classes)) {
      assert.ok(cls in declared.classes, `${name}: class ${cls} is registered but ${declared.name} does not declare it`);
      for (const [m, count] of Object.entries(methods)) {
        const d = declared.classes[cls].methods;
        assert.ok(m in d, `${name}: ${cls}.${m} is registered but not declared`);
        assert.equal(d[m], count, `${name}: ${cls}.${m} takes ${count} arguments; declared ${d[m]}`);
      }
    }

    // Declared → at run time.
    for (const [fn, count] of Object.entries(declared.functions)) {
      assert.equal(typeof module[fn], 'function', `${name}: ${declared.name}.${fn} is declared but the module has no such function`);
      // Emscripten's runtime functions (count_emval_handles) carry no argCount: their JS length then.
      const actual = module[fn].argCount ?? module[fn].length;
      assert.equal(actual, count, `${name}: ${fn} is declared with ${count} arguments; the module's takes ${actual}`);
    }
    for (const [cls, { construct, methods }] of Object.entries(declared.classes)) {
      assert.ok(cls in live.classes, `${name}: class ${cls} is declared but the module registers none`);
      for (const [m, count] of Object.entries(methods)) {
        assert.ok(m in live.classes[cls], `${name}: ${cls}.${m} is declared but the class has no such method`);
        assert.equal(live.classes[cls][m], count);
      }
      // embind keeps a constructor per argument count: one with the declared count must exist.
      const handle = new module[cls](...new Array(construct).fill(undefined));
      handle.delete();
    }
    for (const v of declared.values) assert.ok(module[v] !== undefined, `${name}: ${declared.name}.${v} is declared but absent`);
  });
}

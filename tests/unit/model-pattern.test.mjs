// docs/model-pattern.md held against the code: every model has the pattern's files, its trainer
// header declares the protocol's members (settings with validate(), init from the project's
// Random, a forward/backward pair, step, progress, stop, diverged_at, result, settings), its JS
// trainer has step/stop/result/dispose, its worker task trains it in its own module, its source
// element is registered, and the page names every file checked here. Reads files only: cheap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');

/** One row per model: the files of docs/model-pattern.md's table and the protocol's names. */
const MODELS = [
  {
    name: 'max-digit',
    task: 'core/max_digit_task.hpp',
    model: 'core/max_digit_model.hpp',
    forward: 'forward_logits',
    backward: 'max_digit_loss_backward',
    training: 'core/max_digit_training.hpp',
    trainingSource: 'core/max_digit_training.cpp',
    settings: 'MaxDigitTrainingSettings',
    trainer: 'MaxDigitTrainer',
    formats: ['formats/max_digit_weights.hpp', 'formats/max_digit_analysis.hpp', 'formats/max-digit-weights.d.ts'],
    cli: 'cli/max_digit_command.cpp',
    bindings: 'web/bindings/max_digit_bindings.cpp',
    js: 'web/max-digit.js',
    create: 'createMaxDigitTrainer',
    workerTask: 'max-digit-train',
    module: 'max-digit',
    element: 'headlab-max-digit-model',
    elementFile: 'widgets/headlab-max-digit-model.ts',
    // One host per source: an embind handle the source makes once per model (held()), every figure's analyses take it.
    host: {
      handle: 'MaxDigitModelHandle',
      made: 'maxDigitModel',
      source: 'widgets/max-digit/model.ts',
      holds: /\bheld\(core: MaxDigitCore/,
    },
    tests: [
      'tests/core/max_digit_training_test.cpp',
      'tests/formats/max_digit_weights_test.cpp',
      'tests/cli/max_digit.cmake',
      'tests/wasm/max-digit.test.mjs',
      'tests/browser/max-digit.test.mjs',
    ],
  },
  {
    name: 'feature recovery',
    task: 'core/feature_recovery_task.hpp',
    model: 'core/feature_recovery_model.hpp',
    forward: 'feature_recovery_forward',
    backward: 'feature_recovery_backward',
    training: 'core/feature_recovery_experiment.hpp',
    trainingSource: 'core/feature_recovery_experiment.cpp',
    settings: 'FeatureRecoverySettings',
    trainer: 'FeatureRecoveryTrainer',
    formats: ['formats/feature_recovery_results.hpp', 'formats/feature-recovery-results.d.ts'],
    cli: 'cli/feature_recovery_command.cpp',
    bindings: 'web/bindings/feature_recovery_bindings.cpp',
    js: 'web/feature-recovery.js',
    create: 'createFeatureRecoveryTrainer',
    workerTask: 'feature-recovery-train',
    module: 'feature-recovery',
    element: 'headlab-feature-recovery',
    elementFile: 'widgets/headlab-feature-recovery.ts',
    // One host per source: the trainer's worker keeps each run it trained as a model handle (keep_model) and answers the figures' requests.
    host: {
      handle: 'FeatureRecoveryModelHandle',
      made: 'featureRecoveryModel',
      source: 'widgets/headlab-feature-recovery.ts',
      holds: /\n {2}request<T>\(run: FeatureRecoveryRun/,
      keeps: 'feature-recovery-train',
      answers: 'feature-recovery-intervene',
    },
    tests: [
      'tests/core/feature_recovery_experiment_test.cpp',
      'tests/cli/feature_recovery.cmake',
      'tests/wasm/feature-recovery.test.mjs',
      'tests/browser/feature-recovery.test.mjs',
    ],
  },
  {
    name: 'transformer',
    task: 'core/induction_task.hpp',
    model: 'core/transformer.hpp',
    forward: 'transformer_forward',
    backward: 'transformer_backward',
    training: 'core/transformer_training.hpp',
    trainingSource: 'core/transformer_training.cpp',
    settings: 'TransformerTrainingSettings',
    trainer: 'TransformerTrainer',
    formats: ['formats/transformer_model.hpp', 'formats/transformer_json.hpp', 'formats/transformer.d.ts'],
    cli: 'cli/model_command.cpp',
    bindings: 'web/bindings/transformer_bindings.cpp',
    js: 'web/transformer.js',
    create: 'createTransformerTrainer',
    workerTask: 'transformer-train',
    module: 'transformer',
    element: 'headlab-transformer-model',
    elementFile: 'widgets/headlab-transformer-model.ts',
    // One host per source: the source's one worker reads the files and keeps the model handle (keep_model), answering every figure by key.
    host: {
      handle: 'TransformerModelHandle',
      made: 'loadTransformer',
      source: 'widgets/transformer/model.ts',
      holds: /\n {2}request<T>\(model: LoadedTransformer/,
      keeps: 'transformer-load',
      answers: 'transformer-analyze',
    },
    tests: [
      'tests/core/transformer_training_test.cpp',
      'tests/formats/transformer_model_test.cpp',
      'tests/cli/model.cmake',
      'tests/wasm/transformer.test.mjs',
      'tests/browser/transformer-widgets.test.mjs',
    ],
  },
];

const filesOf = (m) => [m.task, m.model, m.training, m.trainingSource, ...m.formats, m.cli, m.bindings, m.js, m.elementFile, ...m.tests];

/** The text of `class name { … };` (or struct) in `source`: from its opening line to the first line that is `};`. */
function body(source, kind, name) {
  const start = source.search(new RegExp(`^${kind} ${name}\\b[^;]*\\{`, 'm'));
  assert.ok(start >= 0, `${kind} ${name} is defined`);
  const end = source.indexOf('\n};', start);
  return source.slice(start, end);
}

test('OwnedTrainer carries the JS side of the protocol: step, progress, stop, dispose', () => {
  const owned = body(read('web/owned-handle.js').replace(/^export /gm, ''), 'class', 'OwnedTrainer');
  for (const member of ['step\\(n = 1\\) \\{', 'get progress\\(\\) \\{', 'stop\\(\\) \\{'])
    assert.match(owned, new RegExp(`\\n  ${member}`), member);
  assert.match(read('web/owned-handle.js'), /\n {2}dispose\(\) \{/);
});

for (const m of MODELS) {
  test(`${m.name}: the pattern's files exist`, () => {
    for (const file of filesOf(m)) assert.ok(fs.existsSync(path.join(root, file)), `${file} exists`);
  });

  test(`${m.name}: settings with validate(), init from the project's Random, a forward/backward pair`, () => {
    const header = read(m.training);
    assert.match(body(header, 'struct', m.settings), /\n\s+void validate\(\) const;/);
    for (const field of ['seed', 'steps', 'batch_size', 'learning_rate', 'init_scale']) {
      assert.match(body(header, 'struct', m.settings), new RegExp(`\\b${field} = `), `${m.settings}.${field}`);
    }
    // The initial weights come from a named sub-stream of Random(seed), never a literal stream.
    assert.match(read(m.trainingSource), /Random\([\w.]*seed\)\.stream\(kInitialisationStream\)/);
    const model = read(m.model);
    assert.match(model, new RegExp(`\\b${m.forward}\\(`), `${m.model} declares ${m.forward}`);
    assert.match(model, new RegExp(`\\b${m.backward}\\(`), `${m.model} declares ${m.backward}`);
  });

  test(`${m.name}: the trainer protocol's members, in C++ and in JS`, () => {
    const trainer = body(read(m.training), 'class', m.trainer);
    const members = [
      `explicit ${m.trainer}\\(const ${m.settings}& settings\\)`,
      'TrainingProgress step\\(long n\\)',
      'TrainingProgress progress\\(\\) const',
      'void stop\\(\\)',
      'diverged_at\\(\\) const',
      '\\bresult\\(\\) const',
      `const ${m.settings}& settings\\(\\) const`,
    ];
    for (const member of members) assert.match(trainer, new RegExp(member), `${m.trainer} has ${member}`);
    // In JS: a class over OwnedTrainer (web/owned-handle.js: step, progress, stop, dispose) with
    // its own result(), made by core.create<Model>Trainer(settings).
    const js = read(m.js);
    assert.match(js, new RegExp(`${m.create}: \\(settings`), `${m.js} exports ${m.create}`);
    const jsTrainer = js.slice(js.indexOf(`export class ${m.trainer} extends OwnedTrainer {`));
    assert.ok(js.includes(`export class ${m.trainer} extends OwnedTrainer {`), `${m.js}: class ${m.trainer} extends OwnedTrainer`);
    assert.match(jsTrainer.slice(0, jsTrainer.indexOf('\n}')), /\n {2}result\(\) \{/, `${m.js}: ${m.trainer}.result()`);
  });

  test(`${m.name}: a worker task trains it in its own module, and a source element is registered`, () => {
    const tasks = read('web/worker-tasks.js');
    const at = tasks.indexOf(`'${m.workerTask}': {`);
    assert.ok(at >= 0, `web/worker-tasks.js has '${m.workerTask}'`);
    const task = tasks.slice(at, tasks.indexOf('\n  },', at));
    assert.match(task, new RegExp(`module: '${m.module}'`));
    assert.match(task, new RegExp(`core\\.${m.create}\\(`));
    const tag = m.elementFile.replace(/^widgets\/headlab-(.+)\.ts$/, '$1');
    const define = read(`widgets/headlab-${tag}-define.ts`);
    assert.match(define, new RegExp(`defineElement\\('${m.element}', `));
  });
}

test('one model host per source: each wing holds its model once, in a handle its source makes and every figure asks', () => {
  const tasks = read('web/worker-tasks.js');
  const taskBody = (name) => {
    const at = tasks.indexOf(`'${name}': {`);
    assert.ok(at >= 0, `web/worker-tasks.js has '${name}'`);
    return tasks.slice(at, tasks.indexOf('\n  },', at));
  };
  const doc = read('docs/model-pattern.md');
  const hosts = doc.slice(doc.indexOf('### One host per model'), doc.indexOf('\n## ', doc.indexOf('### One host per model')));
  for (const m of MODELS) {
    // The bindings hold the model in a class handle; the JS layer makes it (never per call).
    assert.match(read(m.bindings), new RegExp(`emscripten::class_<${m.host.handle}>`), `${m.bindings} binds ${m.host.handle}`);
    assert.match(read(m.js), new RegExp(`\\b${m.host.made}\\b`), `${m.js} makes the model handle (${m.host.made})`);
    assert.match(read(m.host.source), m.host.holds, `${m.host.source}: the source holds the model for its figures`);
    if (m.host.keeps) {
      // A worker host: the source's worker keeps the model it read or trained, and answers requests by its id.
      assert.match(taskBody(m.host.keeps), /params\??\.keep_model/, `'${m.host.keeps}' keeps the model (keep_model)`);
      assert.match(taskBody(m.host.answers), /\bmodel\b/, `'${m.host.answers}' answers from the kept model`);
    }
    // docs/model-pattern.md's "One host per model" names each wing's handle and source.
    for (const name of [m.host.handle, m.host.source]) assert.ok(hosts.includes(name), `"One host per model" names ${name} (${m.name})`);
  }
  // Only model sources and training elements start workers: no figure keeps a worker (and a copy of a model) of its own.
  const starters = new Set([
    'widgets/base/training-job.ts',
    'widgets/max-digit/model.ts',
    'widgets/transformer/model.ts',
    'widgets/headlab-feature-recovery.ts',
    'widgets/headlab-max-digit-model.ts',
    'widgets/headlab-transformer-training.ts',
    'widgets/headlab-seed-grid.ts',
    'widgets/headlab-training-replay.ts',
  ]);
  const walk = (dir) =>
    fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? walk(`${dir}/${d.name}`) : d.name.endsWith('.ts') ? [`${dir}/${d.name}`] : []));
  const starting = walk('widgets').filter((f) => /new (WorkerJobs|WorkerHost|WorkerClient|TrainingJob)\b/.test(read(f)));
  assert.deepEqual(
    starting.filter((f) => !starters.has(f)),
    [],
    'widget files that start a worker but are no model source or trainer',
  );
});

test('one name for the transformer: no file or identifier of the code calls the model "own model" or "induction model"', () => {
  // `induction` names the task (its sequences, default config, scores), "own model" the author's page; the model is `transformer`.
  const dirs = ['core', 'formats', 'cli', 'web', 'widgets'];
  const walk = (dir) =>
    fs
      .readdirSync(path.join(root, dir), { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? (d.name === 'node_modules' ? [] : walk(`${dir}/${d.name}`)) : [`${dir}/${d.name}`]));
  const files = dirs.flatMap(walk).filter((f) => /\.(cpp|hpp|ts|js)$/.test(f));
  const named = /(own|induction)[-_]?model|(induction)[-_]?trainer/i;
  assert.deepEqual(
    files.filter((f) => named.test(path.basename(f))),
    [],
    'files named after the model by another name',
  );
  const identifier =
    /\b(?:OwnModel|InductionModel|InductionTrainer|ownModel|inductionModel|inductionTrainer|own_model|induction_model|induction_trainer)\w*/g;
  const found = files.flatMap((f) => (read(f).match(identifier) ?? []).map((m) => `${f}: ${m}`));
  assert.deepEqual(found, [], 'identifiers naming the transformer by another name');
});

test('docs/model-pattern.md names every file, task and element the pattern test checks', () => {
  const doc = read('docs/model-pattern.md');
  assert.doesNotMatch(doc, /two trained models/);
  for (const m of MODELS) {
    for (const name of [
      ...filesOf(m).filter((f) => f !== m.trainingSource),
      `'${m.workerTask}'`,
      `<${m.element}>`,
      m.trainer,
      m.settings,
      m.forward,
      m.backward,
    ]) {
      assert.ok(doc.includes(name), `docs/model-pattern.md names ${name} (${m.name})`);
    }
  }
  assert.ok(doc.includes('tests/core/trainer_protocol_test.cpp'));
});

test('the widget base knows no model: widgets/base/ imports no model module, loader or type of one', () => {
  const dir = path.join(root, 'widgets/base');
  // A model's JS face (web/<model>.js), its loader (get<Model>Core) and its module's types (<Model>Core).
  const model =
    /max-digit|feature-recovery|transformer|getMaxDigitCore|getFeatureRecoveryCore|getTransformerCore|MaxDigit|FeatureRecovery|Transformer/;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const imports = read(`widgets/base/${file}`).match(/^import[^;]*;/gm) ?? [];
    for (const line of imports) assert.doesNotMatch(line, model, `widgets/base/${file}: ${line}`);
  }
});

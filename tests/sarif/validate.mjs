// `small check|lint|validate|verify --format sarif` against the SARIF 2.1.0
// JSON Schema (the one Microsoft's SARIF SDK ships, sarif-2.1.0-rtm.5: the
// schema published with the OASIS standard), plus what code scanning needs:
// a result per finding with its rule, level, file and region.
// Usage: node validate.mjs path/to/small
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv from 'ajv';

const require = createRequire(import.meta.url);
const small = process.argv[2] && resolve(process.argv[2]);
if (!small) {
  console.error('usage: node validate.mjs SMALL');
  process.exit(2);
}

// Quiet about the draft-07 meta-schema's $id, which a draft-04 setup ignores.
const ajv = new Ajv({ schemaId: 'id', allErrors: true, logger: { log() {}, warn() {}, error: console.error } });
ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
const validate = ajv.compile(schema);

let failures = 0;
function fail(what) {
  console.error('FAIL: ' + what);
  failures++;
}
function check(condition, what) {
  if (!condition) fail(what);
}

function run(args, cwd) {
  return spawnSync(small, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

// One command's SARIF: valid by the schema, with the exit code it reports.
function sarifOf(args, cwd, expectedExit) {
  const r = run(args, cwd);
  check(r.status === expectedExit, `${args.join(' ')}: exit ${r.status}, expected ${expectedExit}\n${r.stderr}`);
  let doc;
  try {
    doc = JSON.parse(r.stdout);
  } catch (e) {
    fail(`${args.join(' ')}: stdout is not JSON: ${e.message}\n${r.stdout}`);
    return null;
  }
  if (doc === null || typeof doc !== 'object') {
    fail(`${args.join(' ')}: stdout is not a JSON object`);
    return null;
  }
  if (!validate(doc)) fail(`${args.join(' ')}: SARIF schema violations:\n${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  check(doc.runs?.[0]?.invocations?.[0]?.exitCode === expectedExit, `${args.join(' ')}: invocation exitCode`);
  return doc;
}

const dir = mkdtempSync(join(tmpdir(), 'small-sarif-'));
try {
  check(run(['init', '--intent', 'SARIF test', '--no-agents'], dir).status === 0, 'init');
  for (const cmd of ['check', 'lint', 'validate', 'verify']) {
    const clean = sarifOf([cmd, '--format', 'sarif'], dir, 0);
    if (clean) check(clean.runs[0].results.length === 0, `${cmd} on a clean workspace has results`);
  }

  // A plan with the wrong owner and a dependency cycle, at known places.
  const plan = join(dir, '.small', 'plan.small.yml');
  writeFileSync(plan, [
    'small_version: "1.0.0"',
    'owner: "human"',
    'tasks:',
    '  - id: "a"',
    '    title: "A"',
    '    depends_on: ["b"]',
    '  - id: "b"',
    '    title: "B"',
    '    depends_on: ["a"]',
    '',
  ].join('\n'));
  const lint = sarifOf(['lint', '--format', 'sarif'], dir, 1);
  if (lint) {
    const results = lint.runs[0].results;
    const rules = lint.runs[0].tool.driver.rules.map((r) => r.id);
    const owner = results.find((r) => r.ruleId === 'INV-P1');
    check(owner, 'lint: no INV-P1 result');
    if (owner) {
      const loc = owner.locations[0].physicalLocation;
      check(loc.artifactLocation.uri === '.small/plan.small.yml', 'INV-P1 uri: ' + loc.artifactLocation.uri);
      check(loc.artifactLocation.uriBaseId === '%SRCROOT%', 'INV-P1 uriBaseId');
      check(loc.region.startLine === 2, 'INV-P1 line ' + loc.region.startLine);
      check(owner.level === 'error', 'INV-P1 level');
      check(rules[owner.ruleIndex] === 'INV-P1', 'INV-P1 ruleIndex');
    }
    check(results.some((r) => r.ruleId === 'INV-P7'), 'lint: no INV-P7 (cycle) result');
    check(new Set(rules).size === rules.length, 'rules listed twice');
  }
  sarifOf(['check', '--format', 'sarif'], dir, 1);
  sarifOf(['validate', '--format', 'sarif'], dir, 1);
  sarifOf(['verify', '--format', 'sarif', '--strict'], dir, 1);

  // A run that cannot judge: an unknown scope is exit 2, still a SARIF log.
  const usage = sarifOf(['check', '--format', 'sarif', '--workspace', 'nowhere'], dir, 2);
  if (usage) check(usage.runs[0].invocations[0].executionSuccessful === false, 'usage error: executionSuccessful');

  // The validator can fail: a log with the wrong version is rejected.
  if (lint) {
    const broken = JSON.parse(JSON.stringify(lint));
    broken.version = '2.0.0';
    delete broken.runs[0].results[0].message;
    check(!validate(broken), 'the schema accepted a broken log (the validator cannot fail)');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (failures) {
  console.error(`${failures} failure(s)`);
  process.exit(1);
}
console.log('PASS: SARIF 2.1.0 output of check, lint, validate and verify');

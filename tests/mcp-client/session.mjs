// A whole agent session against `small mcp`, driven by the official MCP
// TypeScript SDK client over stdio:
//   node session.mjs /path/to/small
// Starts in an empty folder: status says there is no workspace, the init tool
// makes one; lists tools (every argument described, annotated, at most 5 KB) and
// resources, follows resume's next tool call, runs plan -> progress_add ->
// checkpoint (with link and verification) -> handoff -> check, each tool
// answering one short sentence, claims and show, checks tool errors (a
// failing operation, a wrong argument), then the files on disk.
// Exit 0 on success, 1 on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const small = resolve(process.argv[2] ?? "small");
const dir = mkdtempSync(join(tmpdir(), "small-mcp-client-"));
// The server acts for this agent (D19 claims); no remote: claims stay on this machine.
const env = { ...process.env, NO_COLOR: "1", SMALL_AGENT: "sdk-agent" };

function log(line) {
  process.stdout.write(`[mcp-client] ${line}\n`);
}

// A tool call that must succeed; returns its structured content. Every tool
// but resume (the primer) answers one sentence of at most 200 bytes, the
// document being structured.
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name} failed: ${result.content?.[0]?.text}`);
  assert.equal(result.content[0].type, "text");
  assert.equal(result.structuredContent.ok, true, `${name}: envelope ok`);
  assert.equal(result.structuredContent.schema_version, 1, `${name}: envelope schema_version`);
  const text = result.content[0].text;
  if (name !== "resume") {
    assert.ok(!text.includes("\n") && Buffer.byteLength(text) <= 200 && text.endsWith("."),
      `${name}: one short sentence, not ${JSON.stringify(text)}`);
  }
  log(`${name} ok (${result.structuredContent.command}): ${name !== "resume" ? text : Buffer.byteLength(text) + " bytes"}`);
  return result.structuredContent;
}

async function main() {
  const transport = new StdioClientTransport({ command: small, args: ["mcp"], cwd: dir, env, stderr: "pipe" });
  const client = new Client({ name: "small-session-test", version: "1.0.0" });
  await client.connect(transport);
  log(`connected: ${client.getServerVersion().name} ${client.getServerVersion().version}`);
  assert.ok(client.getServerCapabilities().tools, "tools capability");
  assert.ok(client.getServerCapabilities().resources, "resources capability");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  // In the command registry's order (base/command_table), each with MCP's hints.
  assert.deepEqual(names, ["check", "checkpoint", "claim", "claims", "handoff", "init", "plan", "show", "progress_add",
    "ready", "release", "resume", "status"]);
  for (const t of tools) {
    assert.ok(t.annotations, `${t.name} has annotations`);
    if (t.annotations.readOnlyHint !== true) {
      assert.equal(typeof t.annotations.destructiveHint, "boolean", `${t.name} says whether it is destructive`);
    }
    for (const [key, property] of Object.entries(t.inputSchema.properties ?? {})) {
      assert.ok(property.description, `${t.name}.${key} has a description`);
    }
  }
  const listBytes = Buffer.byteLength(JSON.stringify({ tools }));
  // About 1,300 tokens of every agent's context: trim words, not tools.
  assert.ok(listBytes <= 5120, `tools/list is ${listBytes} bytes, over 5 KB`);
  log(`tools/list: ${names.length} tools, ${listBytes} bytes`);

  // No workspace yet: status reports it, resume names the init call, init makes it.
  const missing = await call(client, "status");
  assert.equal(missing.small_dir_exists, false);
  const fresh = await client.callTool({ name: "resume", arguments: {} });
  assert.equal(fresh.structuredContent.next_call.tool, "init");
  await call(client, "init", { intent: "Ship the widget" });
  assert.ok(existsSync(join(dir, "AGENTS.md")), "init wrote the AGENTS.md block");

  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri),
    ["small://intent", "small://constraints", "small://plan", "small://progress", "small://handoff"]);
  const intent = await client.readResource({ uri: "small://intent" });
  assert.match(intent.contents[0].text, /Ship the widget/);
  assert.equal(intent.contents[0].mimeType, "application/yaml");

  // resume ends with the next tool call and its shell line; follow the call.
  const resume = await client.callTool({ name: "resume", arguments: {} });
  assert.equal(resume.isError, false);
  const primer = resume.content[0].text;
  assert.match(primer, /Ship the widget/, "the primer names the intent");
  assert.ok(Buffer.byteLength(primer) <= 2000, "the primer fits 2000 bytes");
  const next = resume.structuredContent.next_call;
  assert.ok(next && names.includes(next.tool), `resume names a tool call: ${JSON.stringify(next)}`);
  assert.ok(primer.includes(`\nCall next: ${next.tool} {`), primer);
  assert.ok(primer.endsWith(`\nIn a shell: ${resume.structuredContent.next_command}\n`), primer);
  const nextArgs = { ...next.arguments };
  for (const key of next.placeholders) nextArgs[key] = "done in the session test";
  await call(client, next.tool, nextArgs);
  log(`resume ok (primer of ${Buffer.byteLength(primer)} bytes), followed ${next.tool} ${JSON.stringify(nextArgs)}`);

  const plan = await call(client, "plan", { add: "Write the widget" });
  const task = plan.added_task_id;
  assert.match(task, /^task-\d+$/);
  // Claims (D19): the agent claims the task; another agent neither sees it
  // ready nor can claim it; resume shows the lease; a release frees it.
  const claimed = await call(client, "claim", { task, ttl: "30m" });
  assert.equal(claimed.claim.agent, "sdk-agent");
  // Another agent, through the CLI, sharing the table.
  const otherAgent = (...args) => JSON.parse(execFileSync(small, [...args, "--json"],
    { cwd: dir, env: { ...env, SMALL_AGENT: "other-agent" }, stdio: ["ignore", "pipe", "ignore"] }).toString());
  assert.ok(!otherAgent("ready").ready.some((t) => t.id === task));
  assert.throws(() => otherAgent("claim", task), /Command failed/);
  assert.ok((await call(client, "ready")).ready.some((t) => t.id === task && t.held_by_you));
  const held = await client.callTool({ name: "resume", arguments: {} });
  assert.match(held.content[0].text, new RegExp(`You \\(sdk-agent\\) hold ${task} until`), held.content[0].text);
  const leases = await call(client, "claims");
  assert.ok(leases.claims.some((c) => c.task === task && c.agent === "sdk-agent" && c.yours), JSON.stringify(leases));
  await call(client, "release", { task });
  assert.ok(otherAgent("ready").ready.some((t) => t.id === task));
  await call(client, "claim", {});  // the next ready task, held until it is completed below
  log("claim, ready, release ok");
  const added = await call(client, "progress_add", {
    task, status: "in_progress", evidence: "started on the widget",
    link: "https://example.com/widget/1", verification: "compiled",
  });
  assert.equal(added.entry.link, "https://example.com/widget/1");
  const done = await call(client, "checkpoint", {
    task, status: "completed", evidence: "widget written", test: "unit",
    link: "https://example.com/widget/2", verification: "unit tests pass",
  });
  assert.equal(done.progress_entry.verification, "unit tests pass");
  // A list of tasks in one call (small plan --from): ids kept, dependencies checked.
  const listed = await call(client, "plan", { tasks: [
    { id: "widget-test", title: "Test the widget", steps: ["Write the cases"] },
    { id: "widget-ship", title: "Ship the widget", depends_on: ["widget-test"], acceptance: ["Released"] },
  ] });
  assert.deepEqual(listed.added_task_ids, ["widget-test", "widget-ship"]);
  // A wrong argument is a tool error the agent can read (not a protocol
  // error), naming the argument and the fix; the corrected call works.
  const wrong = await client.callTool({ name: "plan", arguments: { add: "Document the widget", depends_on: "widget-ship" } });
  assert.equal(wrong.isError, true);
  assert.match(wrong.content[0].text, /argument 'depends_on' must be an array of strings.*\["widget-ship"\]/);
  const documented = await call(client, "plan", {
    add: "Document the widget", depends_on: ["widget-ship"], steps: ["Write the README section"],
    acceptance: ["The README says how"],
  });
  const shown = await call(client, "show", { task: documented.added_task_id });
  assert.deepEqual(shown.tasks[0].depends_on, ["widget-ship"]);
  assert.deepEqual(shown.tasks[0].steps, ["Write the README section"]);
  assert.deepEqual(shown.tasks[0].acceptance, ["The README says how"]);
  await call(client, "plan", { task: documented.added_task_id, status: "cancelled" });
  const order = [];
  // Settle the template's own task the way an agent would: follow resume's
  // next call until what is left is the handoff (a bounded number of steps).
  for (let step = 0; ; ++step) {
    assert.ok(step < 12, "following resume's next call ends");
    const { structuredContent } = await client.callTool({ name: "resume", arguments: {} });
    const call_ = structuredContent.next_call;
    if (!call_ || !["checkpoint", "progress_add", "plan"].includes(call_.tool)) break;
    const args = { ...call_.arguments };
    for (const key of call_.placeholders) args[key] = "done in the session test";
    await call(client, call_.tool, args);
    if (args.status === "completed") order.push(args.task);
  }
  // Resume only ever names a task whose dependencies are done (D18).
  assert.ok(order.indexOf("widget-test") >= 0 && order.indexOf("widget-test") < order.indexOf("widget-ship"),
    `completed in order: ${order.join(", ")}`);
  await call(client, "handoff", { summary: "Widget written" });
  await call(client, "check");

  // A failing operation is a tool error with the CLI's message, and the server lives on.
  const bad = await client.callTool({ name: "checkpoint", arguments: { task: "task-999", status: "completed" } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^Error: .*task-999/);
  assert.equal(bad.structuredContent.ok, false);
  assert.equal(bad.structuredContent.exit_code, 1);
  await client.ping();
  log("tool error reported, server still answers");

  await client.close();

  const small_dir = join(dir, ".small");
  const planText = readFileSync(join(small_dir, "plan.small.yml"), "utf8");
  assert.match(planText, /Write the widget/);
  const progress = readFileSync(join(small_dir, "progress.small.yml"), "utf8");
  assert.ok(progress.includes("started on the widget") && progress.includes("widget written"), "progress entries");
  assert.ok(progress.includes("https://example.com/widget/2") && progress.includes("unit tests pass"), "link, verification");
  assert.ok(existsSync(join(small_dir, "handoff.small.yml")), "handoff written");
  assert.match(readFileSync(join(small_dir, "handoff.small.yml"), "utf8"), /Widget written/);
  execFileSync(small, ["check", "--strict"], { cwd: dir, env, stdio: "inherit" });
  log("files on disk: plan, progress, handoff ok; small check --strict passes");
}

try {
  await main();
  log("PASS");
} catch (e) {
  console.error(`[mcp-client] FAIL: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

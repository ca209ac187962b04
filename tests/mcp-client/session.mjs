// A whole agent session against `small mcp`, driven by the official MCP
// TypeScript SDK client over stdio:
//   node session.mjs /path/to/small
// Creates a fresh workspace (small init), lists tools and resources, runs
// resume -> plan -> progress_add -> checkpoint -> handoff -> check, checks a
// tool error, then checks the files on disk. Exit 0 on success, 1 on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const small = resolve(process.argv[2] ?? "small");
const dir = mkdtempSync(join(tmpdir(), "small-mcp-client-"));
const env = { ...process.env, NO_COLOR: "1" };

function log(line) {
  process.stdout.write(`[mcp-client] ${line}\n`);
}

// A tool call that must succeed; returns its structured content.
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name} failed: ${result.content?.[0]?.text}`);
  assert.equal(result.content[0].type, "text");
  assert.equal(result.structuredContent.ok, true, `${name}: envelope ok`);
  assert.equal(result.structuredContent.schema_version, 1, `${name}: envelope schema_version`);
  log(`${name} ok (${result.structuredContent.command})`);
  return result.structuredContent;
}

async function main() {
  execFileSync(small, ["init", "--intent", "Ship the widget"], { cwd: dir, env, stdio: ["ignore", "ignore", "inherit"] });

  const transport = new StdioClientTransport({ command: small, args: ["mcp"], cwd: dir, env, stderr: "pipe" });
  const client = new Client({ name: "small-session-test", version: "1.0.0" });
  await client.connect(transport);
  log(`connected: ${client.getServerVersion().name} ${client.getServerVersion().version}`);
  assert.ok(client.getServerCapabilities().tools, "tools capability");
  assert.ok(client.getServerCapabilities().resources, "resources capability");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.deepEqual(names, ["resume", "status", "plan", "progress_add", "checkpoint", "handoff", "check"]);
  log(`tools/list: ${names.length} tools, ${JSON.stringify({ tools }).length} bytes`);

  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri),
    ["small://intent", "small://constraints", "small://plan", "small://progress", "small://handoff"]);
  const intent = await client.readResource({ uri: "small://intent" });
  assert.match(intent.contents[0].text, /Ship the widget/);
  assert.equal(intent.contents[0].mimeType, "application/yaml");

  const resume = await client.callTool({ name: "resume", arguments: {} });
  assert.equal(resume.isError, false);
  assert.match(resume.content[0].text, /Ship the widget/, "the primer names the intent");
  assert.ok(Buffer.byteLength(resume.content[0].text) <= 2000, "the primer fits 2000 bytes");
  log("resume ok (primer of " + Buffer.byteLength(resume.content[0].text) + " bytes)");
  const plan = await call(client, "plan", { add: "Write the widget" });
  const task = plan.added_task_id;
  assert.match(task, /^task-\d+$/);
  await call(client, "progress_add", { task, status: "in_progress", evidence: "started on the widget" });
  await call(client, "checkpoint", { task, status: "completed", evidence: "widget written", test: "unit" });
  // Settle the template's own tasks so that the strict check has nothing unfinished to complain about.
  const status = await call(client, "status");
  for (const id of status.plan?.next_actionable ?? []) {
    await call(client, "checkpoint", { task: id, status: "completed", evidence: "done in the session test" });
  }
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

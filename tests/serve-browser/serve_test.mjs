// `small serve` end to end: a real server, Debian's headless Chromium driven
// by playwright-core (never a downloaded browser), plain HTTP from node for
// the refusals. Usage: node serve_test.mjs SMALL_BINARY SCREENSHOT.png
//        node serve_test.mjs SMALL_BINARY --perf WORKSPACE_DIR   (figures only)
// Exit 0 on success, 1 on a failure, 77 when Chromium is missing (outside CI).
import {spawn, execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, existsSync, mkdirSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import http from 'node:http';
import {chromium} from 'playwright-core';

const [small, target, perfDir] = process.argv.slice(2);
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  if (process.env.CI === 'true') { console.log('FAIL: /usr/bin/chromium not found'); process.exit(1); }
  console.log('SKIP: /usr/bin/chromium not found'); process.exit(77);
}
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); console.log((ok ? 'ok   ' : 'FAIL ') + what); };
const env = {...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't',
             GIT_COMMITTER_EMAIL: 't@example.com', SMALL_AGENT: 'human-reviewer', NO_COLOR: '1'};
const run = (cwd, ...args) => execFileSync(small, args, {cwd, env, encoding: 'utf8'});
const git = (cwd, ...args) => execFileSync('git', args, {cwd, env, encoding: 'utf8'});

function startServer(dir, ...flags) {
  const child = spawn(small, ['serve', '--dir', dir, ...flags], {env, stdio: ['ignore', 'pipe', 'pipe']});
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const line = out.split('\n')[0]; if (out.includes('\n')) resolve(line.trim()); });
    child.on('exit', (code) => reject(new Error('small serve ended (' + code + '): ' + stderr)));
    setTimeout(() => reject(new Error('small serve printed no URL: ' + stderr)), 10000);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({code, signal})));
  return {child, url, exited};
}

// A plain request: {status, body}.
function request(url, {method = 'GET', headers = {}, body} = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {method, headers, timeout: 5000}, (res) => {
      let data = '';
      res.on('data', (d) => { data += d; if (res.headers['content-type']?.startsWith('text/event-stream')) { req.destroy(); resolve({status: res.statusCode, body: data}); } });
      res.on('end', () => resolve({status: res.statusCode, body: data}));
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? null : reject(e)));
    if (body) req.write(body);
    req.end();
  });
}

async function refusals(url, readOnlyUrl) {
  const u = new URL(url);
  const token = u.searchParams.get('token');
  const base = u.origin;
  const host = u.host;
  check((await request(base + '/state')).status === 401, 'a request without the token is refused (401)');
  check((await request(base + '/state?token=' + token.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).status === 401, 'a wrong token is refused');
  check((await request(base + '/state', {headers: {'X-Small-Token': token}})).status === 200, 'the token in a header is accepted');
  check((await request(base + '/state', {headers: {'X-Small-Token': token, Host: 'evil.example:' + u.port}})).status === 403,
        'a wrong Host is refused (403), token or not');
  const action = JSON.stringify({action: 'add', text: 'forged'});
  const post = (origin) => request(base + '/action', {method: 'POST', body: action,
    headers: {'X-Small-Token': token, 'Content-Type': 'application/json', ...(origin ? {Origin: origin} : {})}});
  check((await post('http://evil.example')).status === 403, 'a POST from a foreign Origin is refused (403)');
  check((await post(null)).status === 403, 'a POST without Origin is refused');
  check((await request(base + '/events', {headers: {'X-Small-Token': token, Origin: 'http://evil.example'}})).status === 403,
        'the event stream refuses a foreign Origin');
  const ro = new URL(readOnlyUrl);
  const roPost = await request(ro.origin + '/action', {method: 'POST', body: action,
    headers: {'X-Small-Token': ro.searchParams.get('token'), 'Content-Type': 'application/json', Origin: ro.origin}});
  check(roPost.status === 403 && roPost.body.includes('read-only'), 'a read-only server refuses actions (403)');
  void host;
}

async function waitFor(page, fn, arg, timeout) {
  const start = Date.now();
  await page.waitForFunction(fn, arg, {timeout, polling: 'raf'});
  return Date.now() - start;
}

async function perf(dir) {
  const server = startServer(dir);
  const url = await server.url;
  const browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
  try {
    const token = new URL(url).searchParams.get('token');
    const t0 = Date.now();
    const state = await request(new URL(url).origin + '/state', {headers: {'X-Small-Token': token}});
    console.log(`state JSON: ${state.body.length} bytes in ${Date.now() - t0} ms (the first request to this server)`);
    const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.loads === '1', null, {timeout: 30000});
    const t = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      fp: performance.getEntriesByName('first-paint')[0]?.startTime,
      ...window.__smallTimings}));
    console.log(`first paint ${Math.round(t.fp)} ms, first contentful paint ${Math.round(t.fcp)} ms, board rendered at ` +
                `${t.first_render_ms} ms (state fetch ${t.state_ms} ms, ${t.state_bytes} bytes; render ${t.render_ms} ms)`);
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
  }
}

async function main() {
  if (target === '--perf') return perf(perfDir);
  const tmp = mkdtempSync(join(tmpdir(), 'small-serve-'));
  const repo = join(tmp, 'repo');
  mkdirSync(repo);
  let server, readOnly, browser;
  try {
    git(repo, 'init', '-q', '-b', 'main');
    run(repo, 'init', '--intent', 'Ship the greeter', '--no-agents');
    const ids = [...run(repo, 'plan', '--add', 'Parse the flags', '--add', 'Print <img src=x onerror="window.__xss=1"> & bye',
                        '--add', 'Provision the keys').matchAll(/Added task (task-\d+)/g)].map((m) => m[1]);
    const [parse, hostile, keys] = ids;
    run(repo, 'checkpoint', '--task', keys, '--status', 'blocked', '--evidence', 'ops must provision the <b>keys</b>');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'workspace');

    server = startServer(repo, '--write', '--as', 'carol');
    readOnly = startServer(repo);
    const url = await server.url;
    check(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/.test(url), 'the URL is printed on stdout: ' + url.replace(/token=.*/, 'token=…'));
    await refusals(url, await readOnly.url);

    browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox']});
    const page = await browser.newPage({viewport: {width: 1400, height: 1300}});
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForSelector(`article.card[data-task="${keys}"]`, {timeout: 10000});
    await page.waitForSelector('#live:not(.off)', {timeout: 5000});
    check(!page.url().includes('token='), 'the token left the address bar (kept in the cookie)');
    const title2 = await page.textContent(`article.card[data-task="${hostile}"] .title`);
    check(title2.includes('<img src=x'), 'hostile text shows as text');
    check(await page.evaluate(() => window.__xss === undefined && !document.querySelector('img')), 'hostile text runs nothing');
    check((await page.textContent('#inbox')).includes('ops must provision the <b>keys</b>'), 'the inbox shows the blocked task and its reason');
    check((await page.textContent('#ready')).includes(parse), 'the ready queue names ' + parse);
    check((await page.textContent('#intent')).includes('Ship the greeter'), 'the intent is shown');
    const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime);
    console.log(`first contentful paint: ${Math.round(paint)} ms`);

    // Another work tree: its side appears, then a CLI write there shows within 1 s.
    const other = join(tmp, 'other');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', other);
    await waitFor(page, () => !!document.querySelector('tr[data-side="side"]'), null, 5000);
    const added = run(other, 'plan', '--add', 'Written on the other side');
    const id = /task-\d+/.exec(added)[0];
    const start = Date.now();
    await page.waitForFunction((id) => document.querySelector('tr[data-side="side"]')?.textContent.includes(id), id, {timeout: 5000, polling: 'raf'}).catch(() => {});
    const shown = Date.now() - start;
    check(shown < 1000, `a CLI write on another work tree shows within 1 s (${shown} ms)`);
    run(other, 'checkpoint', '--task', id, '--status', 'in_progress', '--evidence', 'started over there');
    const start2 = Date.now();
    await page.waitForFunction((id) => document.querySelector('tr[data-side="side"]')?.textContent.includes(id + ' in_progress'), id, {timeout: 5000, polling: 'raf'}).catch(() => {});
    const shown2 = Date.now() - start2;
    check(shown2 < 1000, `a checkpoint on another work tree shows within 1 s (${shown2} ms)`);

    // A claim made in the other work tree shows on the card and in the holder filter.
    run(other, 'claim', hostile, '--agent', 'alice');
    const start3 = Date.now();
    await page.waitForFunction((id) => document.querySelector(`article.card[data-task="${id}"] .claim`)?.textContent.includes('alice until'),
                               hostile, {timeout: 5000, polling: 'raf'}).catch(() => {});
    const shown3 = Date.now() - start3;
    check(shown3 < 1000, `a claim made in another work tree shows within 1 s (${shown3} ms)`);
    check(await page.evaluate(() => [...document.querySelectorAll('#f-holder option')].some((o) => o.value === 'alice')),
          'the holder filter offers alice');

    // The other side's board: its open tasks, with the task only it has, and no action.
    await page.selectOption('#f-side', 'side');
    const sideCard = await page.waitForSelector(`#board article.card[data-task="${id}"]`, {timeout: 5000}).catch(() => null);
    check(sideCard !== null && (await sideCard.textContent()).includes('Written on the other side') && !(await sideCard.$('button')),
          "the side filter shows the other work tree's board (read-only)");
    await page.selectOption('#f-side', '');

    // Unblock from the page: the progress log gets the entry, by the human's name.
    await page.click(`article.card[data-task="${keys}"] button[data-action="unblock-${keys}"]`);
    await page.waitForSelector(`#board [data-column="pending"] article.card[data-task="${keys}"]`, {timeout: 5000});
    const log = readFileSync(join(repo, '.small', 'progress.small.yml'), 'utf8');
    const last = log.slice(log.lastIndexOf('\n  - '));
    check(last.includes(`task_id: "${keys}"`) && /status: "pending"/.test(last) &&
          last.includes(`Updated task ${keys} to pending via the board (small serve) by carol`) &&
          last.includes('small serve board: plan --pending by carol'),
          'an unblock from the page lands in the progress log (plan --pending, the person named as actor)');

    // Block from the page, with a reason.
    await page.click(`article.card[data-task="${parse}"] button[data-action="block-${parse}"]`);
    await page.fill(`article.card[data-task="${parse}"] input`, 'waiting for the review');
    await page.click(`article.card[data-task="${parse}"] button[data-action="ok"]`);
    await page.waitForFunction(() => document.querySelector('#inbox')?.textContent.includes('waiting for the review'), null, {timeout: 5000});
    const blockLog = readFileSync(join(repo, '.small', 'progress.small.yml'), 'utf8');
    const blockEntry = blockLog.slice(blockLog.lastIndexOf('\n  - '));
    check(blockEntry.includes(`task_id: "${parse}"`) && blockEntry.includes('status: "blocked"') &&
          blockEntry.includes('waiting for the review') && blockEntry.includes('blocked by carol on the board (small serve)'),
          'a block from the page lands in the log with its reason and its actor');

    // Add a task and edit a title from the page.
    await page.fill('#add-title', 'Added from the page');
    await page.click('#add-button');
    await page.waitForFunction(() => [...document.querySelectorAll('#board .card .title')].some((t) => t.textContent === 'Added from the page'), null, {timeout: 5000});
    await page.click(`article.card[data-task="${keys}"] button[data-action="title-${keys}"]`);
    await page.fill(`article.card[data-task="${keys}"] input`, 'Provision the signing keys');
    await page.click(`article.card[data-task="${keys}"] button[data-action="ok"]`);
    await page.waitForFunction((id) => document.querySelector(`article.card[data-task="${id}"] .title`)?.textContent === 'Provision the signing keys', keys, {timeout: 5000});
    const plan = readFileSync(join(repo, '.small', 'plan.small.yml'), 'utf8');
    check(plan.includes('title: "Added from the page"') && plan.includes('title: "Provision the signing keys"'),
          'an added task and an edited title land in the plan');

    // The read-only server's page offers no action.
    const roPage = await browser.newPage();
    roPage.on('console', (m) => { if (m.type() === 'error') errors.push('read-only page: ' + m.text()); });
    await roPage.goto(await readOnly.url);
    await roPage.waitForSelector(`article.card[data-task="${keys}"]`, {timeout: 10000});
    check(await roPage.evaluate(() => !document.querySelector('button[data-action]') && document.getElementById('write').hidden),
          'a read-only page shows no action');
    await roPage.close();

    await page.fill('#f-text', 'review');
    const cards = await page.$$eval('#board article.card', (a) => a.map((c) => c.dataset.task));
    check(cards.length === 1 && cards[0] === parse, 'the free-text filter keeps the matching card');
    await page.fill('#f-text', '');

    check(errors.length === 0, 'no console error' + (errors.length ? ': ' + errors.join(' | ') : ''));
    if (target) {
      mkdirSync(dirname(target), {recursive: true});
      await page.screenshot({path: target, fullPage: false});
    }
  } finally {
    if (browser) await browser.close();
    for (const s of [server, readOnly]) {
      if (!s) continue;
      s.child.kill('SIGTERM');
      const end = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r(null), 3000))]);
      check(end && end.code === 0, 'SIGTERM stops the server cleanly (exit 0)');
    }
    rmSync(tmp, {recursive: true, force: true});
  }
}

main().then(() => {
  console.log(failures.length ? `FAIL: ${failures.length} check(s) failed` : 'all checks passed');
  process.exit(failures.length ? 1 : 0);
}, (e) => { console.log('FAIL: ' + (e.stack || e)); process.exit(1); });

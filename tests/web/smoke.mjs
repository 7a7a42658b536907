// The browser smoke test, run by `cargo xtask browser` (xtask/src/browser.rs):
//
//   node tests/web/smoke.mjs <web folder> <out.png>
//
// Serves the folder scripts/web-build.sh made with node:http, opens it in
// headless Chromium (software WebGL: SwiftShader) at 1280x800 and checks:
//
// 1. the page gets ready (the loading indicator goes away) and 200 animation
//    frames run after that;
// 2. the screenshot shows the overlay (the left panel: a fill that is not
//    the background, with text on it) and the units (thousands of pixels in
//    the team colors, orange and blue, in the world area);
// 3. key H hides the overlay (the panel fill leaves the left strip) and
//    brings it back; with the units paused (Space), a click on a unit
//    changes the picture around it (it gets selected), while two pictures
//    of the paused scene without a click are the same there;
// 4. a second load with ?self-check&units=3000 logs `self-check: ok: ...`
//    (every kernel of the build, SIMD128 included, against the naive scan)
//    and shows that line in a notice on the page;
// 5. during all of it: no console error or warning (except on the pages
//    whose answer is an error), no uncaught exception, no alert()
//    (miniquad's gl.js calls alert on GL calls it lacks, which would freeze
//    the page), no failed request;
// 6. ?help shows the flags on the page; ?lesson=my.toml&step=2 and
//    ?lesson=memory-ordr open the lab with one notice naming the bundled
//    lessons (and the step left out); a bad parameter points to ?help, not
//    --help;
// 7. index.html opened from file:// says how to serve the folder;
// 8. ?lesson=simd and ?lesson=threads (read through the page's
//    screen-reader mirror of the lesson panel): Page Down to the summary
//    while measuring, which then finishes; no "(not run)" and no
//    "1 threads" in the summaries; skipped steps name the build; F7, F8,
//    F9 download the lesson's CSV, JSON and a drawn chart PNG, F6 puts its
//    Markdown on the clipboard, and F7 with the panel closed the compare
//    panel's CSV;
// 9. a browser started with --disable-webgl2 shows a message, no spinner;
// 10. ?lesson=algorithms&step=2&units=5000 opens the lesson at step 2, F4
//    (after the lesson's measurement) copies a link with that state that
//    reopens it; F3 opens the presenter
//    view, which shows the step's notes, its question and (revealed) its
//    answer, and follows Page Down; ?embed=1
//    opens; ?units=-5&nope=1 (section 6) names both in one notice and opens
//    the default lab.
// The module is served gzipped (Content-Encoding), as hosts do; the
// progress bar must still end at its total.
//
// Writes the default page's screenshot (after the 200 frames, before any
// input) to <out.png>; with SMOKE_KEEP set, also the pictures of step 3
// next to it. SMOKE_FRAMES changes the 200 (for a quicker look); CHROMIUM
// names the browser (default /usr/bin/chromium). Prints every check with its
// numbers; exits 0 when all pass, 1 otherwise, 2 on bad arguments.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { decodePng } from './png.mjs';

const [dir, outPng] = process.argv.slice(2);
if (!dir || !outPng || !fs.existsSync(path.join(dir, 'index.html'))) {
  console.error('usage: node tests/web/smoke.mjs <folder with index.html> <out.png>');
  process.exit(2);
}
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const WIDTH = 1280, HEIGHT = 800;
const READY_MS = 120_000; // the first load compiles a 5 MB module under SwiftShader
const FRAMES = Number(process.env.SMOKE_FRAMES || 200);
const FRAMES_MS = 300_000; // a few frames per second under SwiftShader on a busy machine
const SELF_CHECK_MS = 120_000;
const LESSON_MS = 300_000; // a lesson measured in the page, sliced into its frames
const WATCHDOG_MS = 1_200_000;

const failures = [];
const problems = []; // console errors and warnings, exceptions, dialogs, failed requests
const t0 = Date.now();
const log = (msg) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${msg}`);
function check(ok, what) {
  log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  if (!ok) failures.push(what);
  return ok;
}

// --- The static server -----------------------------------------------------
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.json': 'application/json',
};
const root = path.resolve(dir);
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const rel = decodeURIComponent(url.pathname) === '/' ? '/index.html' : decodeURIComponent(url.pathname);
  const file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  fs.readFile(file, (err, data) => {
    if (err) {
      res.writeHead(404).end();
      return;
    }
    // The module compressed, as course hosts serve it: Content-Length is
    // then the compressed size, not what the page's progress bar counts.
    const headers = { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream' };
    if (path.extname(file) === '.wasm' && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      data = zlib.gzipSync(data, { level: 1 });
      headers['Content-Encoding'] = 'gzip';
    }
    headers['Content-Length'] = data.length;
    res.writeHead(200, headers);
    res.end(data);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
});

async function finish(code) {
  clearTimeout(watchdog);
  await browser.close().catch(() => {});
  server.close();
  process.exit(code);
}
const watchdog = setTimeout(() => {
  log(`FAILED: the whole run took over ${WATCHDOG_MS / 1000} s`);
  report();
  finish(1);
}, WATCHDOG_MS);

function report() {
  if (problems.length > 0) {
    console.log(`${problems.length} console error(s), warning(s), exception(s), dialog(s) or failed request(s):`);
    for (const p of problems) console.log(`  ${p}`);
  }
}

// --- One page, watched -----------------------------------------------------
/**
 * Opens `query` on a new 1280x800 page of `opts.browser` (default: the one
 * browser) that records every problem, counts animation frames, keeps the
 * loading box's status texts (`__statuses`) and catches downloads
 * (`__downloads`, instead of saving them). With `opts.expectErrors`,
 * console errors are the page's expected answer, not problems.
 */
async function open(label, query, onConsole = () => {}, opts = {}) {
  const page = await (opts.browser || browser).newPage();
  await page.setViewport({ width: WIDTH, height: HEIGHT });
  page.on('console', (m) => {
    const text = m.text();
    console.log(`  ${label} console.${m.type()}: ${text}`);
    const bad = opts.expectErrors ? ['warn', 'warning', 'assert'] : ['error', 'warn', 'warning', 'assert'];
    if (bad.includes(m.type())) problems.push(`${label}: console.${m.type()}: ${text}`);
    onConsole(m.type(), text);
  });
  page.on('pageerror', (e) => {
    console.log(`  ${label} pageerror: ${e.message}`);
    problems.push(`${label}: uncaught exception: ${e.message}`);
  });
  page.on('error', (e) => problems.push(`${label}: page crashed: ${e.message}`));
  page.on('dialog', async (d) => {
    console.log(`  ${label} dialog ${d.type()}: ${d.message()}`);
    problems.push(`${label}: ${d.type()}() dialog: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  page.on('requestfailed', (r) => problems.push(`${label}: request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${label}: HTTP ${r.status()} for ${r.url()}`);
  });
  // Count the callbacks of requestAnimationFrame (miniquad draws one frame
  // in each).
  await page.evaluateOnNewDocument(() => {
    window.__smokeFrames = 0;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (cb) => raf((t) => {
      window.__smokeFrames++;
      cb(t);
    });
  });
  await page.evaluateOnNewDocument(() => {
    window.__statuses = [];
    document.addEventListener('DOMContentLoaded', () => {
      const s = document.getElementById('status');
      if (s) new MutationObserver(() => window.__statuses.push(s.textContent)).observe(s, { childList: true, characterData: true, subtree: true });
    });
    // A download is an anchor with `download` clicked (web/sql.js): keep
    // its name and bytes (base64) instead.
    window.__downloads = [];
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      if (!this.download) return click.call(this);
      const name = this.download;
      window.__downloads.push(fetch(this.href).then((r) => r.arrayBuffer()).then((b) => {
        const bytes = new Uint8Array(b);
        let bin = '';
        for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { name, base64: btoa(bin) };
      }));
    };
  });
  await page.goto(opts.url || base + 'index.html' + query);
  return page;
}

/** The downloads caught so far on `page`: [{ name, bytes (Buffer) }]. */
async function downloads(page) {
  const got = await page.evaluate(() => Promise.all(window.__downloads));
  return got.map((d) => ({ name: d.name, bytes: Buffer.from(d.base64, 'base64') }));
}

/** Presses and releases key `code`, a few frames each way. */
async function pressOn(page, code) {
  await page.keyboard.down(code);
  await waitFrames(page, 2);
  await page.keyboard.up(code);
  await waitFrames(page, 3);
}

/** The lesson panel's text as the page mirrors it for screen readers. */
const lessonText = (page) => page.evaluate(() => document.getElementById('sql-lesson-text')?.textContent || '');

/** Waits until the mirrored lesson text satisfies `ok` (a function of the text); returns it. */
async function waitLesson(page, ok, timeout = LESSON_MS) {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await lessonText(page);
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the lesson text never became ready within ${timeout / 1000} s; it reads: ${JSON.stringify(text)}`);
}

const frames = (page) => page.evaluate(() => window.__smokeFrames);
/** Waits until `n` more animation frames ran. */
async function waitFrames(page, n, timeout = 60_000) {
  const target = (await frames(page)) + n;
  await page.waitForFunction((t) => window.__smokeFrames >= t, { timeout, polling: 100 }, target);
}

/** Waits for the loading indicator to go (ready) or to turn into an error or a message; returns its text or null. */
async function waitReady(page) {
  await page.waitForFunction(
    () => !document.getElementById('loading') || ['failed', 'done'].some((c) => document.getElementById('loading').classList.contains(c)),
    { timeout: READY_MS, polling: 200 },
  );
  return page.evaluate(() => {
    const box = document.getElementById('loading');
    return box ? document.getElementById('status')?.textContent || 'failed' : null;
  });
}

/** With SMOKE_KEEP set, writes the picture `img` next to <out.png> as <out>-<name>.png (to look at a failure). */
function keep(name, img) {
  if (process.env.SMOKE_KEEP) fs.writeFileSync(outPng.replace(/(\.png)?$/, `-${name}.png`), img.png);
}

async function shot(page) {
  const png = Buffer.from(await page.screenshot({ type: 'png', encoding: 'binary' }));
  return { png, ...decodePng(png) };
}

// --- Pixel statistics ------------------------------------------------------
/** Iterates the pixels of the rectangle [x0, x1) x [y0, y1) of `img`. */
function* pixels(img, [x0, y0, x1, y1]) {
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * img.width + x) * 4;
      yield [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2], x, y];
    }
  }
}
const key = (r, g, b) => (r << 16) | (g << 8) | b;
const hex = (k) => '#' + k.toString(16).padStart(6, '0');
/** The most common color of a rectangle and the fraction of its pixels that have it. */
function dominant(img, rect) {
  const counts = new Map();
  let n = 0;
  for (const [r, g, b] of pixels(img, rect)) {
    const k = key(r, g, b);
    counts.set(k, (counts.get(k) || 0) + 1);
    n++;
  }
  let best = 0, bestN = 0;
  for (const [k, c] of counts) if (c > bestN) [best, bestN] = [k, c];
  return { color: best, fraction: bestN / n };
}
/** Fraction of the pixels of `rect` whose color is `color`. */
function fractionOf(img, rect, color) {
  let hit = 0, n = 0;
  for (const [r, g, b] of pixels(img, rect)) {
    n++;
    if (key(r, g, b) === color) hit++;
  }
  return hit / n;
}
/** Fraction of bright pixels (luma over 140: text on the dark panel). */
function brightFraction(img, rect) {
  let hit = 0, n = 0;
  for (const [r, g, b] of pixels(img, rect)) {
    n++;
    if (0.299 * r + 0.587 * g + 0.114 * b > 140) hit++;
  }
  return hit / n;
}
/** Pixels in the team colors: saturated orange (red over blue) and blue (blue over red). */
function teamPixels(img, rect) {
  let orange = 0, blue = 0;
  for (const [r, g, b] of pixels(img, rect)) {
    const max = Math.max(r, g, b), min = Math.min(r, g, b);
    if (max < 100 || (max - min) / max < 0.4) continue;
    if (r > b + 60) orange++;
    else if (b > r + 60) blue++;
  }
  return { orange, blue };
}
/** Pixels of `rect` that differ between two pictures, and their bounding box. */
function changed(a, b, rect) {
  let n = 0, box = [Infinity, Infinity, -1, -1];
  const [x0, y0, x1, y1] = rect;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * a.width + x) * 4;
      if (a.rgba[i] !== b.rgba[i] || a.rgba[i + 1] !== b.rgba[i + 1] || a.rgba[i + 2] !== b.rgba[i + 2]) {
        n++;
        box = [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)];
      }
    }
  }
  return { n, box };
}

// The overlay's panel sits at the top left (about 10..515 x 10..778 at
// 1280x800, its width follows its contents); the strip is well inside it.
// The world is drawn right of the panel (worldArea).
const PANEL = [20, 40, 360, 760];
const TOP = [600, 0, WIDTH, 4]; // above the world's far corner: background

/** The area right of the panel (the rightmost pixel of its fill, plus 24 for its shadow). */
function worldArea(img, fill) {
  let right = PANEL[2];
  for (const [r, g, b, x] of pixels(img, [PANEL[2], PANEL[1], img.width, PANEL[3]])) {
    if (key(r, g, b) === fill && x > right) right = x;
  }
  return [Math.min(right + 24, img.width), 0, img.width, img.height];
}

/** Finds a unit to click: the team-colored pixel of the world area with the most team-colored pixels around it. */
function findUnit(img, world) {
  const team = (x, y) => {
    const i = (y * img.width + x) * 4;
    const [r, g, b] = [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]];
    const max = Math.max(r, g, b), min = Math.min(r, g, b);
    return max >= 100 && (max - min) / max >= 0.4 && Math.abs(r - b) > 60;
  };
  let best = null, bestN = 0;
  // The middle of the world area, away from the panel and the edges.
  for (let y = 250; y < 550; y += 2) {
    for (let x = Math.max(world[0], 650); x < 1050; x += 2) {
      if (!team(x, y)) continue;
      let n = 0;
      for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) if (team(x + dx, y + dy)) n++;
      if (n > bestN) [best, bestN] = [[x, y], n];
    }
  }
  return best;
}

// --- 1. The default page -----------------------------------------------------
try {
  let page = await open('default', '');
  const failed = await waitReady(page);
  if (!check(failed === null, `the page got ready (${failed ? `it says: ${failed}` : 'loading indicator removed'})`)) {
    throw new Error('not ready');
  }
  const readyAt = Date.now();
  log(`ready after ${((readyAt - t0) / 1000).toFixed(1)} s`);
  // The progress bar counts the decompressed bytes against the module's
  // own size, so it ends at "N of N" on a gzip host.
  const statuses = await page.evaluate(() => window.__statuses);
  const loads = statuses.map((s) => s.match(/Downloading Spatial Query Lab: ([\d.]+) MB of ([\d.]+) MB/)).filter(Boolean);
  const lastLoad = loads[loads.length - 1];
  check(
    lastLoad && lastLoad[1] === lastLoad[2] && loads.every((m) => m[2] === lastLoad[2]),
    `the download's progress ends at its total on a gzip host (${lastLoad ? lastLoad[0] : 'no progress shown'}; ${loads.length} updates)`,
  );
  const start = await frames(page);
  await waitFrames(page, FRAMES, FRAMES_MS);
  const seconds = (Date.now() - readyAt) / 1000;
  check(true, `${FRAMES} animation frames after ready (${start} before) in ${seconds.toFixed(1)} s: ${(FRAMES / seconds).toFixed(1)} frames/s`);

  // --- 2. What the picture shows ---------------------------------------------
  const first = await shot(page);
  fs.writeFileSync(outPng, first.png);
  log(`wrote ${outPng}`);
  const bg = dominant(first, TOP);
  const panel = dominant(first, PANEL);
  const text = brightFraction(first, PANEL);
  const bgInPanel = fractionOf(first, PANEL, bg.color);
  log(`background ${hex(bg.color)} (${(100 * bg.fraction).toFixed(0)}% of the top rows); panel strip: fill ${hex(panel.color)} ${(100 * panel.fraction).toFixed(1)}%, background ${(100 * bgInPanel).toFixed(1)}%, bright (text) ${(100 * text).toFixed(2)}%`);
  check(
    panel.color !== bg.color && panel.fraction > 0.3 && bgInPanel < 0.05 && text > 0.005 && text < 0.3,
    'the overlay is drawn: the left strip is mostly a panel fill that is not the background, with text on it',
  );
  const WORLD = worldArea(first, panel.color);
  log(`world area: x from ${WORLD[0]}`);
  check(WORLD[0] < 800, 'the panel leaves room for the world');
  const units = teamPixels(first, WORLD);
  const bgInWorld = fractionOf(first, WORLD, bg.color);
  log(`world area: ${units.orange} orange and ${units.blue} blue pixels, background ${(100 * bgInWorld).toFixed(1)}%`);
  check(units.orange > 2000 && units.blue > 2000, 'the units are drawn: over 2,000 pixels of each team color in the world area');

  // --- 3. A key and a click ----------------------------------------------------
  const press = async (code) => {
    await page.keyboard.down(code);
    await waitFrames(page, 2);
    await page.keyboard.up(code);
    await waitFrames(page, 4);
  };
  await press('KeyH');
  const hidden = await shot(page);
  keep('overlay-hidden', hidden);
  const fillHidden = fractionOf(hidden, PANEL, panel.color);
  log(`after H: panel fill ${(100 * fillHidden).toFixed(1)}% of the strip (was ${(100 * panel.fraction).toFixed(1)}%)`);
  check(fillHidden < 0.05, 'key H hides the overlay');
  await press('KeyH');
  const shown = await shot(page);
  const fillShown = fractionOf(shown, PANEL, panel.color);
  log(`after H again: panel fill ${(100 * fillShown).toFixed(1)}%`);
  check(fillShown > 0.3, 'key H again shows the overlay');

  await press('Space'); // pause: the scene stands still, so only the click changes it
  await waitFrames(page, 4);
  const still1 = await shot(page);
  await waitFrames(page, 4);
  const still2 = await shot(page);
  const drift = changed(still1, still2, WORLD);
  keep('paused-1', still1);
  keep('paused-2', still2);
  log(`paused: ${drift.n} world pixels changed over 4 frames without input`);
  check(drift.n === 0, 'Space pauses: the world stands still');
  const target = findUnit(still2, WORLD);
  if (check(target !== null, `found a unit to click${target ? ` at (${target})` : ''}`)) {
    await page.mouse.move(target[0], target[1]);
    await waitFrames(page, 2);
    await page.mouse.down();
    await waitFrames(page, 2);
    await page.mouse.up();
    await waitFrames(page, 6);
    const clicked = await shot(page);
    const diff = changed(still2, clicked, WORLD);
    keep('clicked', clicked);
    const dimmed = teamPixels(clicked, WORLD);
    log(`after the click: ${dimmed.orange} orange and ${dimmed.blue} blue pixels (the others' colors dim around a selection)`);
    log(`after the click: ${diff.n} world pixels changed, within x ${diff.box[0]}..${diff.box[2]}, y ${diff.box[1]}..${diff.box[3]}`);
    check(diff.n > 200, 'a click on a unit changes the picture (selection drawn)');
  }
  await page.close();

  // --- 4. The self-check -------------------------------------------------------
  let verdict = null;
  page = await open('self-check', '?self-check&units=3000', (_type, text) => {
    if (verdict === null && /^self-check: (ok|FAILED):/.test(text)) verdict = text;
  });
  const failed2 = await waitReady(page);
  check(failed2 === null, `the self-check page got ready (${failed2 ? `it says: ${failed2}` : 'loading indicator removed'})`);
  const deadline = Date.now() + SELF_CHECK_MS;
  while (verdict === null && failed2 === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  check(verdict !== null && verdict.startsWith('self-check: ok:'), `self-check: ${verdict ?? `no "self-check: ok:" line within ${SELF_CHECK_MS / 1000} s`}`);
  const notice = await page.evaluate(() => [...document.querySelectorAll('.sql-notice')].map((n) => n.textContent).join(' | '));
  check(/self-check: ok:/.test(notice), `the self-check's verdict is on the page too (notice: ${JSON.stringify(notice.slice(0, 100))})`);
  await page.close();

  // --- 6. ?help, and parameters left out with one notice -------------------------
  page = await open('help', '?help');
  const help = await waitReady(page);
  check(help !== null && /URL parameter/.test(help) && /--units/.test(help), `?help shows the flags as URL parameters (${JSON.stringify((help || '').slice(0, 80))})`);
  await page.close();
  // A lesson file (the page reads none) still opens the lab, and its one
  // notice names the bundled lessons and the step left out with it.
  page = await open('lesson-file', '?lesson=my.toml&step=2');
  const fileLesson = await waitReady(page);
  const fileNotices = await page.evaluate(() => [...document.querySelectorAll('.sql-notice')].map((n) => n.textContent));
  check(fileLesson === null && fileNotices.length === 1 && /lesson=my\.toml/.test(fileNotices[0]) && /reads no files/.test(fileNotices[0])
      && /algorithms/.test(fileNotices[0]) && /step=2/.test(fileNotices[0]) && !/not supported/.test(fileNotices[0]),
    `?lesson=my.toml&step=2 opens the lab with one notice naming the bundled lessons (${JSON.stringify([fileLesson, fileNotices])})`);
  await page.close();
  // A bad or unknown parameter is named in one notice and ignored: the
  // default lab opens (no error page, no console error).
  page = await open('bad-params', '?units=-5&nope=1');
  const badParams = await waitReady(page);
  check(badParams === null, `?units=-5&nope=1 still opens the lab (${JSON.stringify(badParams)})`);
  const notices = await page.evaluate(() => [...document.querySelectorAll('.sql-notice')].map((n) => n.textContent));
  check(notices.length === 1 && /units=-5/.test(notices[0]) && /nope=1/.test(notices[0]) && /\?help/.test(notices[0]),
    `one notice names both ignored parameters and points to ?help (${JSON.stringify(notices)})`);
  await waitFrames(page, 5);
  await page.close();
  // A misspelled lesson: the same, and the notice lists the right name.
  page = await open('bad-lesson', '?lesson=memory-ordr&units=4000');
  const badLesson = await waitReady(page);
  const lessonNotices = await page.evaluate(() => [...document.querySelectorAll('.sql-notice')].map((n) => n.textContent));
  check(badLesson === null && lessonNotices.length === 1 && /lesson=memory-ordr/.test(lessonNotices[0]) && /memory-order/.test(lessonNotices[0]),
    `?lesson=memory-ordr opens the lab with one notice naming the bundled lessons (${JSON.stringify([badLesson, lessonNotices])})`);
  await page.close();

  // --- 7. Opened from the disk ----------------------------------------------------
  page = await open('file', '', () => {}, { url: 'file://' + path.join(root, 'index.html') });
  const fromFile = await waitReady(page);
  check(fromFile !== null && /python3 -m http\.server/.test(fromFile), `index.html from file:// says how to serve it (${JSON.stringify((fromFile || '').slice(0, 90))})`);
  await page.close();

  // --- 8. Lessons that know the browser, and their exports --------------------------
  const summaryReady = (t) => /\nSummary\n/.test(t) && !/Measuring the lesson/.test(t) && !t.includes('…');
  page = await open('simd', '?lesson=simd');
  check((await waitReady(page)) === null, '?lesson=simd got ready');
  // Straight to the summary while the lesson is still measuring: it
  // finishes there.
  for (let i = 0; i < 8; i++) await pressOn(page, 'PageDown');
  let lt = await waitLesson(page, summaryReady);
  log(`simd summary: ${JSON.stringify(lt)}`);
  check(!lt.includes('(not run)') && /SIMD128/.test(lt), 'the simd summary reads as sentences and quotes SIMD128');
  for (let i = 0; i < 5; i++) await pressOn(page, 'PageUp');
  lt = await waitLesson(page, (t) => /Step 2 of/.test(t) && !/Measuring the lesson/.test(t));
  log(`simd step 2: ${JSON.stringify(lt)}`);
  check(/Not measured: the browser build \(WebAssembly\) has no SSE kernel/.test(lt) && !/this CPU/.test(lt), 'a skipped step names the build, not the CPU');
  for (let i = 0; i < 5; i++) await pressOn(page, 'PageDown');
  await waitLesson(page, summaryReady);
  await new Promise((r) => setTimeout(r, 1000));
  const context = browser.defaultBrowserContext();
  await context.overridePermissions(base, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  for (const key of ['F7', 'F8', 'F9', 'F6']) await pressOn(page, key);
  await waitFrames(page, 10);
  const got = await downloads(page);
  log(`downloads: ${got.map((d) => `${d.name} (${d.bytes.length} bytes)`).join(', ')}`);
  const byName = (n) => got.find((d) => d.name === n);
  const csv = byName('spatial-query-lab-lesson.csv');
  check(csv && /^[a-z_]+(,[a-z_]+)+\n/.test(csv.bytes.toString()) && csv.bytes.toString().split('\n').length > 2, 'F7 (Save CSV) downloads the lesson CSV: a header and rows');
  const json = byName('spatial-query-lab-lesson.json');
  let doc = null;
  try { doc = json && JSON.parse(json.bytes.toString()); } catch (e) { doc = null; }
  check(doc && doc.lesson === 'simd' && Array.isArray(doc.rows), 'F8 (Save JSON) downloads the lesson JSON');
  const png = byName('spatial-query-lab-chart.png');
  if (png) keep('lesson-chart', { png: png.bytes });
  let chartOk = false;
  try {
    const img = png && decodePng(png.bytes);
    let lit = 0;
    for (let i = 0; img && i < img.rgba.length; i += 4) if (img.rgba[i] + img.rgba[i + 1] + img.rgba[i + 2] > 60) lit++;
    chartOk = img && img.width > 100 && lit > 0.05 * img.width * img.height;
  } catch (e) { chartOk = false; }
  check(chartOk, `F9 (Save chart) downloads a PNG of the panel's chart, drawn (not a black frame)${png ? ` (${png.bytes.length} bytes)` : ''}`);
  const clip = await page.evaluate(() => navigator.clipboard.readText().catch((e) => `refused: ${e.message}`));
  check(/^# /.test(clip) && clip.includes('SIMD'), `F6 (Copy Markdown) puts the lesson on the clipboard (${JSON.stringify(clip.slice(0, 60))})`);
  // With the lessons panel closed the keys export the compare panel.
  await pressOn(page, 'F2');
  await pressOn(page, 'F7');
  await waitFrames(page, 5);
  const compareCsv = (await downloads(page)).find((d) => d.name === 'spatial-query-lab-compare.csv');
  check(compareCsv && /^[a-z_]+(,[a-z_]+)+\n/.test(compareCsv.bytes.toString()), 'F7 with the lessons panel closed downloads the compare CSV');
  await page.close();

  // --- 10. The state as a link, and the presenter view ------------------------------
  page = await open('link', '?lesson=algorithms&step=2&units=5000');
  check((await waitReady(page)) === null, '?lesson=algorithms&step=2&units=5000 got ready');
  lt = await waitLesson(page, (t) => /Step 2 of 3/.test(t));
  check(/Step 2 of 3: Uniform grid/.test(lt), `the link opens the lesson at step 2 (${JSON.stringify(lt.slice(0, 80))})`);
  // The link's units outlive the lesson's measurement (which measures the
  // steps as written, then leaves the scene as the link set it).
  await waitLesson(page, (t) => !/Measuring the lesson/.test(t));
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await pressOn(page, 'F4');
  await waitFrames(page, 5);
  const link = await page.evaluate(() => navigator.clipboard.readText().catch((e) => `refused: ${e.message}`));
  check(/\/index\.html\?lesson=algorithms&step=2&units=5000$/.test(link) || /\/\?lesson=algorithms&step=2&units=5000$/.test(link),
    `F4 (Copy link) gives the state as a URL on this page (${JSON.stringify(link)})`);
  // The presenter view: a second window that follows the steps.
  const popup = new Promise((resolve) => browser.once('targetcreated', (t) => resolve(t)));
  await pressOn(page, 'F3');
  const popupTarget = await Promise.race([popup, new Promise((r) => setTimeout(() => r(null), 20_000))]);
  const presenter = popupTarget && (await popupTarget.page());
  check(presenter && /presenter\.html$/.test(presenter.url()), `F3 opens the presenter view (${presenter ? presenter.url() : 'no window'})`);
  if (presenter) {
    await presenter.waitForFunction(() => /Step 2 of 3/i.test(document.getElementById('heading').textContent), { timeout: 20_000 }).catch(() => {});
    const heading = await presenter.evaluate(() => document.getElementById('heading').textContent);
    const notes = await presenter.evaluate(() => document.getElementById('notes').textContent);
    check(/step 2 of 3/i.test(heading) && notes.length > 20 && !/no notes/.test(notes), `the presenter view shows step 2 and its notes (${JSON.stringify(heading)}, ${JSON.stringify(notes.slice(0, 60))})`);
    check(/^Asks: /.test(await presenter.evaluate(() => document.getElementById('question').textContent)),
      'the presenter view shows the question step 2 asks');
    await page.bringToFront();
    // Step 2 asks a question: the first Page Down reveals its answer and
    // stays, the second moves on.
    await pressOn(page, 'PageDown');
    const revealed = await waitLesson(page, (t) => /Answer: /.test(t), 20_000).catch((e) => e.message);
    check(/Step 2 of 3/.test(revealed) && /Answer: /.test(revealed),
      `Page Down on a question reveals its answer and stays on step 2 (${JSON.stringify(revealed.slice(0, 160))})`);
    await presenter.waitForFunction(() => /^Answer: /.test(document.getElementById('answer').textContent), { timeout: 20_000 }).catch(() => {});
    const told = await presenter.evaluate(() => document.getElementById('answer').textContent);
    check(/^Answer: measured /.test(told), `the presenter view shows the revealed answer (${JSON.stringify(told)})`);
    await pressOn(page, 'PageDown');
    await presenter.waitForFunction(() => /Step 3 of 3/i.test(document.getElementById('heading').textContent), { timeout: 20_000 }).catch(() => {});
    const after = await presenter.evaluate(() => document.getElementById('heading').textContent);
    check(/step 3 of 3/i.test(after), `the presenter view follows Page Down (${JSON.stringify(after)})`);
    await presenter.close();
  }
  await page.close();
  // The link reopens the same state.
  if (/^https?:/.test(link)) {
    page = await open('link-again', '', () => {}, { url: link });
    check((await waitReady(page)) === null, 'the copied link got ready');
    lt = await waitLesson(page, (t) => /Step 2 of 3/.test(t));
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await pressOn(page, 'F4');
    await waitFrames(page, 5);
    const again = await page.evaluate(() => navigator.clipboard.readText().catch((e) => `refused: ${e.message}`));
    check(/Step 2 of 3: Uniform grid/.test(lt) && again === link, `the copied link reopens the same state (${JSON.stringify(again)})`);
    await page.close();
  }
  // An embed: the scene and its headline, the panel closed.
  page = await open('embed', '?embed=1&units=3000');
  check((await waitReady(page)) === null, '?embed=1 got ready');
  await waitFrames(page, 20);
  const embedShot = await shot(page);
  keep('embed', embedShot);
  // Units are drawn where the panel would cover them.
  const under = teamPixels(embedShot, [20, 40, 360, 600]);
  check(under.orange + under.blue > 1000,
    `?embed=1 shows the scene with the panel closed (${under.orange} orange and ${under.blue} blue pixels where the panel would be)`);
  await page.close();

  page = await open('threads', '?lesson=threads');
  check((await waitReady(page)) === null, '?lesson=threads got ready');
  lt = await waitLesson(page, (t) => /Step 1 of/.test(t));
  await pressOn(page, 'PageDown');
  lt = await waitLesson(page, (t) => /Step 2 of/.test(t) && !/Measuring the lesson/.test(t));
  log(`threads step 2: ${JSON.stringify(lt)}`);
  check(/Not measured: the browser build runs on one thread/.test(lt), 'the every-core step is skipped with the browser as the reason');
  await pressOn(page, 'PageDown');
  lt = await waitLesson(page, summaryReady);
  log(`threads summary: ${JSON.stringify(lt)}`);
  check(!lt.includes('(not run)') && !/\b1 threads\b/.test(lt) && /Only one thread runs here/.test(lt), 'the threads summary reads as sentences: no "(not run)", no "1 threads"');
  await page.close();
} catch (e) {
  check(false, `the run stopped: ${e.message}`);
}

// --- 9. A browser without WebGL 2 ---------------------------------------------------
try {
  const noGl = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--disable-webgl2'],
  });
  const page = await open('no-webgl2', '', () => {}, { browser: noGl });
  const said = await waitReady(page);
  const spinner = await page.evaluate(() => {
    const s = document.getElementById('spinner');
    return s ? getComputedStyle(s).display : 'none';
  });
  check(said !== null && /WebGL 2/.test(said) && spinner === 'none', `without WebGL 2 the page says so, with no spinner (${JSON.stringify((said || '').slice(0, 90))})`);
  await noGl.close();
} catch (e) {
  check(false, `the run without WebGL 2 stopped: ${e.message}`);
}

// --- 5. Nothing went wrong on the way -------------------------------------------
report();
check(problems.length === 0, `no console error or warning, exception, dialog or failed request (${problems.length})`);
log(failures.length === 0 ? 'browser smoke test passed' : `browser smoke test FAILED: ${failures.join('; ')}`);
await finish(failures.length === 0 ? 0 : 1);

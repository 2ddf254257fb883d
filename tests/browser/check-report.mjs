// check-report: load evalset HTML reports in headless Chromium and check
// them as a reader would, printing TAP.
//
// usage: node check-report.mjs CONFIG.json
//
// CONFIG: {"chromium": "/usr/bin/chromium", "profile": "DIR", "pages": [PAGE...]}
// PAGE:   {"name", "file", "artifacts": DIR, "title": substring of <title>,
//          "charts": [svg ids that must be drawn],
//          "k": the report's context size,
//          "expect": {"<k>": {"P@k": v, "R@k": v, "Success@k": v, "RR": v, "nDCG@k": v}},
//                    values `evalset score --format json` gives at that k
//          "escape": [strings that must show as text] (optional),
//          "injected": true for a copy with a script injected, which must not run}
//
// The browser is Debian's chromium started through playwright-core's
// executablePath, never a downloaded build; it runs with a fresh profile
// and no network services. Screenshots go to each page's artifacts dir.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { launch } from './lib.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let n = 0, failed = 0;
const lines = [];
function ok(cond, what, diag) {
  n++;
  if (!cond) failed++;
  lines.push(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
  if (!cond && diag !== undefined)
    for (const l of String(diag).split('\n')) lines.push(`# ${l}`);
  console.log(lines.splice(0).join('\n'));
}
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
// slider output ids -> measure names of `score` at cutoff k
const SLIDER = [['P', k => `P@${k}`], ['R', k => `R@${k}`], ['S', k => `Success@${k}`],
                ['RR', () => 'RR'], ['nDCG', k => `nDCG@${k}`]];

// Return the share of pixels of a PNG screenshot that are not near-white,
// measured by drawing it on a canvas in a blank page.
async function inkShare(context, png) {
  const page = await context.newPage();
  const share = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4)
      if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) ink++;
    return ink / (d.length / 4);
  }, png.toString('base64'));
  await page.close();
  return share;
}

async function readSlider(page, row) {
  return page.evaluate((r) => {
    const out = {};
    for (const key of ['P', 'R', 'S', 'RR', 'nDCG']) {
      const e = document.getElementById(`${r}-${key}`);
      out[key] = e ? { text: e.textContent, value: Number(e.getAttribute('data-value')) } : null;
    }
    return out;
  }, row);
}

function checkSlider(name, got, expect, k) {
  const bad = [];
  for (const [key, measure] of SLIDER) {
    const want = expect[measure(k)];
    const g = got[key];
    if (want === undefined) { bad.push(`score gave no ${measure(k)}`); continue; }
    if (!g) { bad.push(`no output for ${key}`); continue; }
    if (!close(g.value, want) || g.text !== want.toFixed(4))
      bad.push(`${measure(k)}: page shows ${g.text} (${g.value}), score gives ${want}`);
  }
  ok(bad.length === 0, `${name}: whole-set P, R, Success, RR, nDCG at k=${k} equal score's`, bad.join('\n'));
}

async function checkPage(context, p) {
  mkdirSync(p.artifacts, { recursive: true });
  const page = await context.newPage();
  const consoleErrors = [], dialogs = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });

  const resp = await page.goto(pathToFileURL(path.resolve(p.file)).href, { waitUntil: 'load' });
  ok(resp === null || resp.ok(), `${p.name}: the report loads from a file`);
  const shot = path.join(p.artifacts, `${p.name}.png`);
  const png = await page.screenshot({ path: shot, fullPage: true });
  const ink = await inkShare(context, png);
  ok(ink > 0.01, `${p.name}: the page is not blank (screenshot ${shot})`, `ink share ${ink}`);
  const title = await page.title();
  ok(title.includes(p.title), `${p.name}: the title names the set`, `title: ${JSON.stringify(title)}`);
  for (const id of p.charts) {
    const info = await page.evaluate((cid) => {
      const s = document.getElementById(cid);
      if (!s || s.tagName.toLowerCase() !== 'svg') return null;
      const r = s.getBoundingClientRect();
      return { w: r.width, h: r.height, nodes: s.querySelectorAll('*').length,
               texts: s.querySelectorAll('text').length };
    }, id);
    ok(info && info.w > 200 && info.h > 100 && info.nodes > 10 && info.texts > 3,
       `${p.name}: chart #${id} is drawn with axes and labels`, JSON.stringify(info));
  }
  const points = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#chart-recall g.series')).map((g) => ({
      series: g.getAttribute('data-series'),
      pts: Array.from(g.querySelectorAll('circle.pt')).map((c) =>
        [Number(c.getAttribute('data-x')), Number(c.getAttribute('data-y'))]) })));
  ok(points.length >= 1 && points.every((s) => s.pts.length === 100),
     `${p.name}: the R@k curves have a point for each k from 1 to 100`,
     JSON.stringify(points.map((s) => [s.series, s.pts.length])));
  const want = p.expect[String(p.k)];
  if (want) {
    const at = points.length ? points[0].pts.find((q) => q[0] === p.k) : undefined;
    ok(at && close(at[1], want[`R@${p.k}`]),
       `${p.name}: the candidate's R@${p.k} point equals score's R@${p.k}`,
       `chart ${at && at[1]}, score ${want[`R@${p.k}`]}`);
    const bar = await page.evaluate(() => {
      const r = document.querySelector('#chart-subsets g.group[data-group="all answerable"] rect.bar[data-series="candidate"]');
      return r ? Number(r.getAttribute('data-value')) : null;
    });
    ok(bar !== null && close(bar, want[`R@${p.k}`]),
       `${p.name}: the candidate's "all answerable" subset bar equals score's R@${p.k}`,
       `bar ${bar}, score ${want[`R@${p.k}`]}`);
    checkSlider(`${p.name} (as rendered)`, await readSlider(page, 'set'), want, p.k);
  }
  for (const k of Object.keys(p.expect).map(Number).filter((k) => k !== p.k)) {
    const before = await readSlider(page, 'q');
    await page.locator('#k').fill(String(k));
    const shown = await page.locator('#k-value').textContent();
    ok(shown === String(k), `${p.name}: the slider shows k=${k}`, `shown ${shown}`);
    checkSlider(p.name, await readSlider(page, 'set'), p.expect[String(k)], k);
    const after = await readSlider(page, 'q');
    ok(after.RR.value === before.RR.value && after.P.value >= 0,
       `${p.name}: the chosen question's RR does not move with k (k=${k})`,
       `${before.RR.value} -> ${after.RR.value}`);
    await page.screenshot({ path: path.join(p.artifacts, `${p.name}-k${k}.png`), fullPage: false });
  }
  if (p.escape) {
    const body = await page.evaluate(() => document.body.innerText);
    for (const s of p.escape)
      ok(body.includes(s), `${p.name}: ${JSON.stringify(s)} shows as text`);
    const imgs = await page.evaluate(() => document.querySelectorAll('img, body script:not([id=slider-data])').length);
    ok(imgs === 1, `${p.name}: no element was injected (one script: the report's own)`, `img + script count ${imgs}`);
  }
  if (p.escape) {
    const raw = await page.evaluate(() => document.body.innerText);
    ok(!/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/.test(raw),
       `${p.name}: no bidirectional or zero-width character is left raw on the page`);
  }
  ok(dialogs.length === 0, `${p.name}: no dialog opened`, dialogs.join('\n'));
  if (p.injected) {
    const pwned = await page.evaluate(() => window.__pwned);
    ok(pwned === undefined, `${p.name}: an injected inline script and inline handler do not run (CSP)`, `__pwned = ${pwned}`);
    const csp = consoleErrors.filter((e) => /Content Security Policy/i.test(e));
    ok(csp.length >= 1, `${p.name}: the browser reports the blocked script`, consoleErrors.join('\n'));
    ok(consoleErrors.length === csp.length, `${p.name}: no other console errors`,
       consoleErrors.filter((e) => !/Content Security Policy/i.test(e)).join('\n'));
  } else {
    ok(consoleErrors.length === 0, `${p.name}: no console errors (the page's own script passes its CSP)`,
       consoleErrors.join('\n'));
  }
  ok(requests.length === 0, `${p.name}: no network request`, requests.join('\n'));
  await page.close();
}

let context;
try {
  context = await launch(config, { width: 1280, height: 900 });
} catch (e) {
  ok(false, `chromium starts (${config.chromium})`, e.stack || String(e));
  console.log(`1..${n}`);
  process.exit(1);
}
try {
  for (const p of config.pages) {
    try {
      await checkPage(context, p);
    } catch (e) {
      ok(false, `${p.name}: checks ran to the end`, e.stack || String(e));
    }
  }
} finally {
  await context.close();
}
console.log(`1..${n}`);
writeFileSync(path.join(config.pages[0].artifacts, 'tap.txt'), `${n - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);

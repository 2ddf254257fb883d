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
//          "score": score --format json of the candidate at k (its questions),
//          "compare": compare --format json (lost, gained), or absent,
//          "word": a whole word to type into the question table's search,
//          "subset": a subset to filter by (e.g. "tag=hard"), or absent,
//          "shots": a folder for docs/ screenshots, or absent,
//          "injected": true for a copy with a script injected, which must not run}
//
// The browser is Debian's chromium started through playwright-core's
// executablePath, never a downloaded build; it runs with a fresh profile
// and no network services. Screenshots go to each page's artifacts dir.
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { launch } from './lib.mjs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
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


// ---- the question table, layout and accessibility ----

// No sideways scroll at 'w' CSS px (375: a phone; 640: 1280 at 200% zoom).
async function noSideways(page, where, widths = [375, 640]) {
  const size = page.viewportSize();
  for (const w of widths) {
    await page.setViewportSize({ width: w, height: 800 });
    const r = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    ok(r[0] <= r[1], `${where}: no sideways scroll at ${w} px (WCAG 1.4.10)`, `scrollWidth ${r[0]}, clientWidth ${r[1]}`);
  }
  await page.setViewportSize(size);
}
// axe-core in the state the page is in, at 1280 and 375 px, light and dark:
// no serious or critical violation.
async function axe(page, where) {
  const size = page.viewportSize();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    if (scheme === 'dark') ok(bg === 'rgb(22, 22, 22)', `${where}: the page follows prefers-color-scheme: dark`, bg);
    for (const w of [1280, 375]) {
      await page.setViewportSize({ width: w, height: 800 });
      if (!await page.evaluate(() => typeof window.axe === 'object')) await page.evaluate(axeSource);
      const bad = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((x) => x.target.join(' ')).join(', ')}`));
      ok(bad.length === 0, `${where}: axe finds no serious or critical violation (${w} px, ${scheme})`, bad.join('\n'));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}
// The ids of every row the table shows for its filter, page after page
// (Next page clicked with the mouse), and the number of pages.
async function allRows(page) {
  const ids = [];
  let pages = 1;
  while (await page.locator('#qt-prev').isEnabled()) await page.click('#qt-prev');
  for (;;) {
    ids.push(...await page.$$eval('#qtable tbody tr', (trs) => trs.map((t) => t.getAttribute('data-id'))));
    if (!await page.locator('#qt-next').isEnabled()) break;
    await page.click('#qt-next');
    pages++;
  }
  while (await page.locator('#qt-prev').isEnabled()) await page.click('#qt-prev');
  return { ids, pages };
}
const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

async function shotTo(page, p, name, at, fullPage = false) {
  if (at) await page.evaluate((sel) => document.querySelector(sel).scrollIntoView({ block: 'start' }), at);
  const f = path.join(p.artifacts, `${p.name}-${name}.png`);
  await page.screenshot({ path: f, fullPage });
  if (p.shots) { mkdirSync(p.shots, { recursive: true }); copyFileSync(f, path.join(p.shots, `report-${name}.png`)); }
}

async function checkTable(page, p) {
  const score = JSON.parse(readFileSync(p.score, 'utf8'));
  const cmp = p.compare ? JSON.parse(readFileSync(p.compare, 'utf8')) : null;
  const k = p.k;
  const qs = score.questions.filter((q) => q.answerable);
  const lost = new Set(cmp ? cmp.lost.map((q) => q.id) : []), gained = new Set(cmp ? cmp.gained.map((q) => q.id) : []);
  const found = (q) => q.rel_ranks && q.rel_ranks.length && q.rel_ranks[0] <= k;
  const status = (q) => cmp ? (lost.has(q.id) ? 'lost' : gained.has(q.id) ? 'gained' : found(q) ? 'both' : 'never')
                            : (found(q) ? 'found' : 'never');
  const byStatus = {};
  for (const q of qs) (byStatus[status(q)] ||= []).push(q.id);

  // every question, then each status filter, against score and compare
  const all = await allRows(page);
  ok(same(all.ids, qs.map((q) => q.id)), `${p.name}: the question table holds every answerable question (${qs.length}, ${all.pages} pages)`,
     `${all.ids.length} rows`);
  const rows = await page.$$eval('#qtable tbody tr', (trs) => trs.length);
  ok(rows <= 50, `${p.name}: the table draws one page of rows at a time`, `${rows} rows`);
  for (const st of cmp ? ['lost', 'gained', 'never', 'both'] : ['found', 'never']) {
    await page.selectOption('#qt-status', st);
    const got = await allRows(page);
    ok(same(got.ids, byStatus[st] || []), `${p.name}: "Show ${st}" lists exactly the ${st} questions (${(byStatus[st] || []).length})`,
       `page ${JSON.stringify(got.ids)}\nwant ${JSON.stringify(byStatus[st] || [])}`);
    const shown = await page.locator(`#n-${st}`).textContent().catch(() => null);
    ok(shown === String((byStatus[st] || []).length), `${p.name}: the count of ${st} questions is ${(byStatus[st] || []).length}`, shown);
  }
  await page.selectOption('#qt-status', '');

  // a whole word typed into the search, with a delay between keys: the
  // focus stays in the field, it holds the word, every row matches
  const word = p.word;
  await page.click('#qt-search');
  await page.keyboard.type(word, { delay: 40 });
  const focus = await page.evaluate(() => [document.activeElement.id, document.activeElement.value]);
  ok(focus[0] === 'qt-search' && focus[1] === word, `${p.name}: typing "${word}" leaves the focus and the whole word in the search field`,
     JSON.stringify(focus));
  const want = qs.filter((q) => (q.id + '\n' + q.text).toLowerCase().includes(word.toLowerCase())).map((q) => q.id);
  const got = await allRows(page);
  const texts = await page.$$eval('#qtable tbody tr', (trs) => trs.map((t) => t.textContent.toLowerCase()));
  ok(want.length > 0 && want.every((id) => got.ids.includes(id)) && texts.every((t) => t.includes(word.toLowerCase())),
     `${p.name}: the search for "${word}" shows every question holding it (${want.length}) and only rows that hold it`,
     `shown ${JSON.stringify(got.ids)}, want ${JSON.stringify(want)}`);
  await noSideways(page, `${p.name} (searched)`);
  await axe(page, `${p.name} (searched)`);
  await shotTo(page, p, 'search', '#questions');
  await page.fill('#qt-search', '');
  await page.keyboard.press('Tab');   // out of the field (the keyboard moves on)
  // the subset filter
  if (p.subset) {
    const opt = await page.$$eval('#qt-subset option', (os, want) => (os.find((o) => o.textContent === want) || {}).value, p.subset);
    await page.selectOption('#qt-subset', opt ?? '');
    const [what, val] = p.subset.split('=');
    const wantIds = qs.filter((q) => what === 'tag' ? (q.tags || []).includes(val) : (q.origin || 'hand') === val).map((q) => q.id);
    const sub = await allRows(page);
    ok(opt !== undefined && same(sub.ids, wantIds), `${p.name}: the subset ${p.subset} lists its ${wantIds.length} questions`,
       `${sub.ids.length} shown`);
    await page.selectOption('#qt-subset', '');
  }
  // sorting by rank change (largest drop first) and by rank after
  if (cmp) {
    await page.selectOption('#qt-sort', 'drop');
    const ch = await page.$$eval('#qtable tbody tr td:nth-child(6)', (tds) => tds.map((t) => Number(t.getAttribute('data-value'))));
    ok(ch.length > 1 && ch.every((v, i) => i === 0 || ch[i - 1] <= v), `${p.name}: sorted by rank change, the largest drop comes first`, JSON.stringify(ch.slice(0, 20)));
  }
  await page.selectOption('#qt-sort', 'after');
  const col = cmp ? 5 : 4;
  const after = await page.$$eval(`#qtable tbody tr td:nth-child(${col})`, (tds) => tds.map((t) => t.textContent));
  const num = after.map((t) => (/^\d+$/.test(t) ? Number(t) : Infinity));
  ok(num.every((v, i) => i === 0 || num[i - 1] <= v), `${p.name}: sorted by rank after, ascending (none last)`, JSON.stringify(after.slice(0, 20)));

  // a question shown at the cutoff: from the keyboard (Enter on its id) and the mouse
  const rr = (id) => { const q = qs.find((x) => x.id === id); return q.rel_ranks && q.rel_ranks.length ? 1 / q.rel_ranks[0] : 0; };
  const pick = page.locator('#qtable tbody button.pick');
  const first = await pick.nth(0).textContent();
  await pick.nth(0).focus();
  await page.keyboard.press('Enter');
  let at = await page.evaluate(() => [document.getElementById('q-id').textContent, document.activeElement.id,
    Number(document.getElementById('q-RR').getAttribute('data-value'))]);
  ok(at[0] === first && at[1] === 'q-text' && close(at[2], rr(first)),
     `${p.name}: Enter on a question's id shows it at the cutoff (its RR = 1 / first relevant rank) and moves the focus there`, JSON.stringify(at));
  const n = await pick.count();
  if (n > 1) {
    const second = await pick.nth(n - 1).textContent();
    await pick.nth(n - 1).click();
    at = await page.evaluate(() => [document.getElementById('q-id').textContent, Number(document.getElementById('q-RR').getAttribute('data-value'))]);
    ok(at[0] === second && close(at[1], rr(second)), `${p.name}: a click on a question's id shows it at the cutoff`, JSON.stringify(at));
    await page.click('#q-prev');
    const prevId = await pick.nth(n - 2).textContent();
    at = await page.evaluate(() => document.getElementById('q-id').textContent);
    ok(at === prevId, `${p.name}: "Previous question" shows the one before it in the table's order`, `${at}, want ${prevId}`);
  }
  await shotTo(page, p, 'cutoff', '#cutoff');
  await page.selectOption('#qt-sort', 'status');
  await shotTo(page, p, 'questions', '#questions');
  await page.setViewportSize({ width: 375, height: 800 });
  await shotTo(page, p, 'narrow', '#questions');
  await page.setViewportSize({ width: 1280, height: 900 });
  await shotTo(page, p, 'top', 'body');
}

// The charts' layout: the forest plot's title clear of its column header,
// every legend label inside its chart, an n beside every subset bar.
async function checkLayout(page, p) {
  const lay = await page.evaluate(() => {
    const inter = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const out = { overlap: null, clipped: [], groups: [] };
    const f = document.getElementById('chart-forest');
    if (f) {
      const texts = Array.from(f.querySelectorAll('text'));
      const title = texts.find((t) => t.classList.contains('chart-title'));
      const head = texts.find((t) => t.textContent === 'delta [95% CI]');
      out.overlap = inter(title.getBoundingClientRect(), head.getBoundingClientRect());
    }
    for (const svg of document.querySelectorAll('svg.chart')) {
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll('g.legend text')) {
        const r = t.getBoundingClientRect();
        if (r.right > box.right + 0.5 || r.bottom > box.bottom + 0.5) out.clipped.push(`${svg.id}: ${t.textContent}`);
      }
    }
    for (const g of document.querySelectorAll('#chart-subsets g.group'))
      out.groups.push([g.getAttribute('data-group'), (g.querySelector('text.n') || {}).textContent]);
    return out;
  });
  if (lay.overlap !== null) ok(!lay.overlap, `${p.name}: the forest plot's title does not overlap its column header`);
  ok(lay.clipped.length === 0, `${p.name}: no legend label is cut by its chart's edge`, lay.clipped.join('\n'));
  const score = JSON.parse(readFileSync(p.score, 'utf8'));
  const nAns = score.questions.filter((q) => q.answerable).length;
  const allGroup = lay.groups.find((g) => g[0] === 'all answerable');
  ok(lay.groups.length > 1 && lay.groups.every((g) => /^n = \d+$/.test(g[1] || '')) && allGroup && allGroup[1] === `n = ${nAns}`,
     `${p.name}: every subset bar carries its n ("all answerable": n = ${nAns})`, JSON.stringify(lay.groups));
  const main = await page.evaluate(() => document.querySelectorAll('main').length);
  ok(main === 1, `${p.name}: the page has one main landmark`, `${main}`);
  // printed: no slider, no controls; the question at the cutoff and every table row keep their question
  await page.emulateMedia({ media: 'print' });
  const pr = await page.evaluate(() => {
    const vis = (e) => e && getComputedStyle(e).display !== 'none' && e.getClientRects().length > 0;
    return { slider: vis(document.querySelector('.slider')), controls: vis(document.querySelector('.controls')),
             drag: /Drag k/.test(document.body.innerText), qid: (document.getElementById('q-id') || {}).textContent,
             atk: vis(document.querySelector('.at-k')),
             rows: Array.from(document.querySelectorAll('#qtable tbody tr')).map((tr) => (tr.querySelector('td.qtext') || {}).textContent || '') };
  });
  ok(!pr.slider && !pr.controls && !pr.drag && pr.atk && pr.qid && pr.rows.length > 0 && pr.rows.every((t) => t.length > 0),
     `${p.name}: printed, the slider and the table's controls are gone, k and the question at the cutoff are named, every row keeps its question`,
     JSON.stringify({ ...pr, rows: pr.rows.length }));
  await page.emulateMedia({ media: 'screen' });
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
    const imgs = await page.evaluate(() => document.querySelectorAll('img, body script:not([id=report-data])').length);
    ok(imgs === 1, `${p.name}: no element was injected (one script: the report's own)`, `img + script count ${imgs}`);
  }
  if (p.escape) {
    const raw = await page.evaluate(() => document.body.innerText);
    ok(!/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/.test(raw),
       `${p.name}: no bidirectional or zero-width character is left raw on the page`);
  }
  if (!p.injected) {
    await noSideways(page, `${p.name} (as loaded)`);
    await axe(page, `${p.name} (as loaded)`);
    await checkLayout(page, p);
    await checkTable(page, p);
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

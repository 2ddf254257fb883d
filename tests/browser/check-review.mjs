// check-review: review a set and grade a pool on `evalset review` pages in
// headless Chromium with the keyboard only, then check the files, printing
// TAP.
//
// usage: node check-review.mjs CONFIG.json
//
// CONFIG: {"work", "artifacts", "shots" (or ""), "chromium", "profile",
//          "evalset", "set": {"url", "dir"}, "pool": {"url", "file"}}
//
// Every action is done with the keys (page.keyboard), then again with the
// mouse on its button (page.click). Files are
// read back through `evalset show --format json` (the set) and as text
// (the pool and rejected.yaml).
import { readFileSync, writeFileSync, appendFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { launch } from './lib.mjs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let n = 0, failed = 0;
function ok(cond, what, diag) {
  n++;
  if (!cond) failed++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
  if (!cond && diag !== undefined) for (const l of String(diag).split('\n')) console.log(`# ${l}`);
}
const show = (id) => JSON.parse(execFileSync(config.evalset, ['show', config.set.dir, id, '--format', 'json'],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
const setFile = path.join(config.set.dir, 'set.yaml');
const inSet = (id) => readFileSync(setFile, 'utf8').includes(`- id: ${id}\n`);

async function shot(page, name) {
  const f = path.join(config.artifacts, `review-${name}.png`);
  await page.screenshot({ path: f, fullPage: false });
  if (config.shots) { mkdirSync(config.shots, { recursive: true }); copyFileSync(f, path.join(config.shots, `review-${name}.png`)); }
}
// Press 'key' and wait until the status line says something new.
async function press(page, key, expect) {
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await page.keyboard.press(key);
  await page.waitForFunction(() => document.getElementById('status').textContent !== '', null, { timeout: 10000 });
  const msg = await page.textContent('#status');
  if (expect && !msg.includes(expect)) throw new Error(`after ${key}: status says '${msg}', expected '${expect}'`);
  // the reload after a write
  await page.waitForTimeout(150);
  return msg;
}
// Click 'sel' and, when a write is expected, wait until the status line says 'expect'.
async function click(page, sel, expect) {
  await page.evaluate(() => { document.getElementById('status').textContent = ''; });
  await page.click(sel);
  if (!expect) { await page.waitForTimeout(100); return ''; }
  await page.waitForFunction(() => document.getElementById('status').textContent !== '', null, { timeout: 10000 });
  const msg = await page.textContent('#status');
  if (!msg.includes(expect)) throw new Error(`after a click on ${sel}: status says '${msg}', expected '${expect}'`);
  await page.waitForTimeout(150);
  return msg;
}
// Run axe-core on the page as it is ('where') at each width, in the light
// and the dark colour scheme: no serious or critical violation (contrast
// included, so each scheme's colours are checked).
async function axe(page, where, widths = [1280, 375]) {
  const size = page.viewportSize();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    if (scheme === 'dark') ok(bg === 'rgb(20, 24, 29)', `dark: the page follows prefers-color-scheme (${where})`, bg);
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 760 });
      await page.waitForTimeout(50);
      if (!await page.evaluate(() => typeof window.axe === 'object')) await page.evaluate(axeSource);
      const bad = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' ' + (n.failureSummary || '').split('\n').slice(1, 2).join('')).join(', ')}`));
      ok(bad.length === 0, `axe: no serious or critical violation (${where}, ${w} px, ${scheme})`, bad.join('\n'));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(size);
}
const currentId = (page) => page.getAttribute('#question', 'data-id');
// The question shown once it is no longer 'id' (a write's page update can
// take a while on a slow build: the sanitizers, an emulator), or 'id' after
// ten seconds.
async function movedFrom(page, id) {
  await page.waitForFunction((was) => document.getElementById('question')?.dataset.id !== was, id,
    { timeout: 10000 }).catch(() => {});
  return currentId(page);
}

async function reviewSet(context) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // the refusals expected: the stale write's 409, the hidden tag's 422
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 4(09|22)/.test(m.text())) errors.push(m.text()); });
  await page.goto(config.set.url);
  await page.waitForSelector('#question');
  ok(await currentId(page) === 'q-0001', 'set: the first question is shown');
  const chunks = await page.$$eval('#question .chunk', (els) => els.map((e) => e.getAttribute('data-chunk')));
  ok(chunks.includes('warsaw-p07') && chunks.length >= 5, 'set: its labelled chunk and the BM25 top 5 are shown', chunks.join(' '));
  ok(await page.$eval('#question .chunk[data-chunk="warsaw-p07"] mark.ev', (m) => m.textContent === '1815').catch(() => false),
    'set: the recorded evidence is highlighted in its chunk');
  ok(await page.$eval('#question .chunk[data-chunk="warsaw-p02"]', (c) => !c.querySelector('mark.ev') &&
                      c.querySelector('mark.ans') && c.querySelector('mark.ans').textContent === '1815').catch(() => false),
    'set: the answer in an unlabelled chunk is marked apart from evidence');
  await shot(page, 'question');
  await axe(page, 'set: a question');

  // Whole words typed, a key at a time, into every field of the filter bar:
  // each keystroke filters, and none may run as a command ('warsaw' holds
  // a, r, s, w; 'quota' holds u and t), so the set file must not change.
  const untyped = readFileSync(setFile, 'utf8');
  const field = (sel) => page.$eval(sel, (e) => ({ focused: document.activeElement === e, value: e.value }));
  await page.keyboard.press('/');
  for (const word of ['warsaw', 'quota', 'reject this one']) {
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(word, { delay: 60 });
    await page.waitForTimeout(200);
    const f = await field('#f-search');
    ok(f.focused && f.value === word, `set: typing '${word}' into the search box keeps the focus there and every letter in it`,
      JSON.stringify(f));
  }
  ok(readFileSync(setFile, 'utf8') === untyped, 'set: no letter typed into the search box changed the set');
  ok(await page.$('#d-input') === null, 'set: no letter typed into the search box opened a dialog');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.focus('#f-critique');
  await page.keyboard.type('2.5 accept', { delay: 60 });
  await page.waitForTimeout(200);
  ok((await field('#f-critique')).focused, 'set: the critique field keeps the focus while typed into');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Escape');
  ok(readFileSync(setFile, 'utf8') === untyped, 'set: nothing typed into the filter fields changed the set');
  ok(await currentId(page) === 'q-0001', 'set: with the fields cleared, the first question is shown again');

  // a: accept q-0001
  await press(page, 'a', 'q-0001 accepted');
  let q = show('q-0001');
  ok(q.provenance.review === 'accepted' && q.provenance.reviewed_by === 'browser-test' &&
     /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(q.provenance.reviewed_at),
    'set: a accepts, with reviewed_by and reviewed_at in the file', JSON.stringify(q.provenance));

  // j, e: edit q-0002's text
  await page.keyboard.press('j');
  ok(await currentId(page) === 'q-0002', 'set: j goes to the next question');
  await page.keyboard.press('e');
  await page.waitForSelector('#d-input');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Which party forms the government in the Scottish Parliament?', { delay: 20 });
  await press(page, 'Enter', 'text of q-0002 saved');
  q = show('q-0002');
  ok(q.text === 'Which party forms the government in the Scottish Parliament?' &&
     q.provenance.original_text === 'What party forms the Scottish Parliament?' && q.provenance.review === 'edited',
    'set: e edits the text, keeping the original in provenance', JSON.stringify(q));

  // n, 2: grade the second chunk (a BM25 hit) relevant 2; then 0 on the third
  await page.keyboard.press('n');
  const second = await page.getAttribute('#question .chunk.focus', 'data-chunk');
  await press(page, '2', `${second} graded 2`);
  await page.keyboard.press('n');
  const third = await page.getAttribute('#question .chunk.focus', 'data-chunk');
  // a write sends back the question as written: the page does not load every question again
  const reloads = [];
  const count = (req) => { if (req.url().endsWith('/api/state')) reloads.push(req.url()); };
  page.on('request', count);
  await press(page, '0', `${third} graded 0`);
  page.off('request', count);
  ok(reloads.length === 0 && await page.getAttribute(`#question .chunk[data-chunk="${third}"]`, 'data-grade') === '0',
    'set: a grade is shown from the write\'s reply, without loading the whole set again', String(reloads.length));
  q = show('q-0002');
  ok(q.relevant[second] === 2 && q.irrelevant.includes(third) && q.relevant['scottish-parliament-p29'] === 1,
    'set: n moves to a chunk, 2 labels it grade 2, 0 labels the next irrelevant', JSON.stringify([q.relevant, q.irrelevant]));
  // x removes the label again
  await press(page, 'x', `label of ${third} removed`);
  ok(!show('q-0002').irrelevant.includes(third), 'set: x removes a label');
  // the scale on the page is 0-3: keys 4-9 write nothing
  const graded = readFileSync(setFile, 'utf8');
  const said = [];
  for (const key of ['4', '7', '9']) said.push(await press(page, key));
  await page.waitForTimeout(300);
  ok(readFileSync(setFile, 'utf8') === graded, 'set: keys 4-9 grade nothing (the scale is 0-3)');
  ok(said.every((m, i) => m.includes('grades are 0 to 3') && m.includes('key ' + '479'[i])) &&
     await page.$eval('#status', (e) => e.className === 'error'), 'set: keys 4-9 are refused where the reviewer looks', said.join(' | '));

  // j, t: tag q-0003
  await page.keyboard.press('j');
  await page.keyboard.press('t');
  await page.waitForSelector('#d-input');
  await axe(page, 'set: a dialog', [1280]);
  await page.keyboard.type('hard', { delay: 40 });
  await press(page, 'Enter', 'tags of q-0003 saved');
  ok(show('q-0003').tags.includes('hard'), 'set: t adds a tag');
  await page.keyboard.press('t');
  await page.waitForSelector('#d-input');
  await page.keyboard.type('-squad', { delay: 40 });
  await press(page, 'Enter', 'tags of q-0003 saved');
  ok(!show('q-0003').tags.includes('squad'), 'set: t with -tag removes a tag');

  // j, r: reject q-0004 with a reason
  await page.keyboard.press('j');
  const rejected = await currentId(page);
  await page.keyboard.press('r');
  await page.waitForSelector('#d-input');
  await page.keyboard.type('ambiguous: <script>alert(1)</script>', { delay: 20 });
  await press(page, 'Enter', `${rejected} rejected`);
  const rej = readFileSync(path.join(config.set.dir, 'rejected.yaml'), 'utf8');
  ok(!inSet(rejected) && rej.includes(`- id: ${rejected}\n`) && rej.includes('reason: \'ambiguous: <script>alert(1)</script>\'') &&
     rej.includes('reviewed_by: browser-test'), 'set: r rejects: out of set.yaml, into rejected.yaml with its reason', rej.slice(0, 800));
  ok(await movedFrom(page, rejected) !== rejected, 'set: the page moves on from a rejected question');

  // u: mark the current question unanswerable, u again: answerable with
  // the grades it had (a 2 stays a 2), not the focused chunk at 1
  const un = await currentId(page);
  await page.keyboard.press('n');
  const two = await page.getAttribute('#question .chunk.focus', 'data-chunk');
  await press(page, '2', `${two} graded 2`);
  await page.keyboard.press('n');
  const had = show(un).relevant;
  await press(page, 'u', `${un} marked unanswerable`);
  q = show(un);
  ok(q.answerable === false && Object.keys(q.relevant).length === 0 && q.irrelevant.includes(two),
    'set: u marks a question unanswerable (its relevant chunks irrelevant)', JSON.stringify(q));
  const focus = await page.getAttribute('#question .chunk.focus', 'data-chunk');
  await press(page, 'u', `${un} marked answerable`);
  q = show(un);
  ok(q.answerable === true && had[two] === 2 && JSON.stringify(q.relevant) === JSON.stringify(had) && (focus in had || !(focus in q.relevant)),
    'set: u again makes it answerable with the grades it had, the grade 2 still 2', JSON.stringify([had, q.relevant, focus]));

  // the list, filtered by status from the keyboard (Tab into the filter)
  await page.keyboard.press('l');
  await page.waitForSelector('#qlist');
  await page.focus('#f-status');
  await page.keyboard.press('Escape');
  await page.selectOption('#f-status', 'accepted');
  const rows = await page.$$eval('#qlist tbody tr', (trs) => trs.map((t) => t.getAttribute('data-id')));
  ok(rows.length === 1 && rows[0] === 'q-0001', 'set: the list filters by status', rows.join(' '));
  await page.selectOption('#f-status', '');
  await shot(page, 'list');
  await axe(page, 'set: the list');
  await page.keyboard.press('?');
  await shot(page, 'help');
  await axe(page, 'set: the help', [1280]);
  await page.keyboard.press('Escape');
  await page.keyboard.press('l');
  await page.waitForSelector('#question');

  // a stale page: the file changes on disk behind it; its write is refused
  appendFileSync(setFile, '# edited by hand while the page was open\n');
  const before = readFileSync(setFile, 'utf8');
  const staleId = await currentId(page);
  const msg = await press(page, 'a');
  ok(/changed on disk/.test(msg), 'set: a stale page is told the file changed on disk', msg);
  ok(readFileSync(setFile, 'utf8') === before, 'set: the stale write changed nothing');
  await page.waitForTimeout(2000);  // the page reloads its data
  await press(page, 'a', `${staleId} accepted`);
  ok(show(staleId).provenance.review === 'accepted', 'set: after the reload the same key writes');

  // The mouse: every action has a labelled button with its key beside it,
  // and a click writes what the key writes.
  const labelled = await page.$$eval('#question .actions button', (bs) => bs.map((b) => ({
    id: b.id, text: b.textContent, key: b.querySelector('kbd') && b.querySelector('kbd').textContent })));
  const need = { 'b-accept': 'a', 'b-edit': 'e', 'b-answerable': 'u', 'b-tag': 't', 'b-reject': 'r', 'b-prev': 'k', 'b-next': 'j',
                 'b-grade-0-0': '0', 'b-grade-1-0': '1', 'b-grade-2-0': '2', 'b-grade-3-0': '3', 'b-unlabel-0': 'x' };
  const missing = Object.entries(need).filter(([id, k]) => !labelled.some((b) => b.id === id && b.key === k && b.text.length > 2));
  ok(missing.length === 0, 'mouse: each action has a labelled button showing its key', JSON.stringify(missing));
  await click(page, '#b-next');
  const m1 = await currentId(page);
  ok(m1 !== staleId, 'mouse: the next-question button moves on', m1);
  await click(page, '#b-prev');
  ok(await currentId(page) === staleId, 'mouse: the previous-question button moves back');
  await click(page, '#b-next');
  await click(page, '#b-accept', `${m1} accepted`);
  ok(show(m1).provenance.review === 'accepted', 'mouse: Accept accepts (in the file)');
  const idx2 = await page.$$eval('#question .chunk', (cs) => cs.findIndex((c) => c.getAttribute('data-grade') === ''));
  const target = await page.$$eval('#question .chunk', (cs, i) => cs[i].getAttribute('data-chunk'), idx2);
  await click(page, `#b-grade-2-${idx2}`, `${target} graded 2`);
  ok(show(m1).relevant[target] === 2, 'mouse: a chunk\'s grade-2 button labels that chunk 2');
  await click(page, `#b-grade-0-${idx2}`, `${target} graded 0`);
  ok(show(m1).irrelevant.includes(target), 'mouse: its irrelevant button labels it 0');
  await click(page, `#b-unlabel-${idx2}`, `label of ${target} removed`);
  q = show(m1);
  ok(!q.irrelevant.includes(target) && !(target in q.relevant), 'mouse: Remove label removes it');
  await click(page, '#b-edit');
  await page.waitForSelector('#d-input');
  await page.fill('#d-input', 'A text edited with the mouse?');
  await click(page, '#d-save', `text of ${m1} saved`);
  ok(show(m1).text === 'A text edited with the mouse?', 'mouse: Edit text, then Save, writes the text');
  await click(page, '#b-tag');
  await page.fill('#d-input', 'clicked');
  await click(page, '#d-save', `tags of ${m1} saved`);
  ok(show(m1).tags.includes('clicked'), 'mouse: Tag, then Save, adds the tag');
  await click(page, '#b-tag');
  await page.fill('#d-input', 'never');
  await page.click('#d-cancel');
  ok(await page.$('#d-input') === null && !show(m1).tags.includes('never'), 'mouse: Cancel closes the dialog and writes nothing');
  await click(page, '#b-answerable', `${m1} marked unanswerable`);
  ok(show(m1).answerable === false, 'mouse: Mark unanswerable writes answerable: false');
  await click(page, '#b-answerable', `${m1} marked answerable`);
  ok(show(m1).answerable === true, 'mouse: Mark answerable writes answerable: true');
  await click(page, '#b-reject');
  await page.fill('#d-input', 'rejected with the mouse');
  await click(page, '#d-save', `${m1} rejected`);
  ok(!inSet(m1) && readFileSync(path.join(config.set.dir, 'rejected.yaml'), 'utf8').includes(`- id: ${m1}\n`),
    'mouse: Reject, then Reject in the dialog, moves it to rejected.yaml');
  // undo and redo, with the mouse and the keys: the rejection taken back
  const rejFile = path.join(config.set.dir, 'rejected.yaml');
  ok(await page.waitForFunction((id) => { const b = document.getElementById('b-undo');
    return b && !b.disabled && b.textContent.includes(`reject ${id}`); }, m1, { timeout: 5000 }).then(() => true, () => false),
    'undo: its button names the write it takes back');
  await click(page, '#b-undo', `undone: reject ${m1}`);
  ok(inSet(m1) && !readFileSync(rejFile, 'utf8').includes(`- id: ${m1}\n`) && show(m1).text === 'A text edited with the mouse?',
    'undo: the Undo button takes a rejection back: in set.yaml again, as it was, out of rejected.yaml');
  ok(await currentId(page) === m1, 'undo: the page shows the question it put back');
  await click(page, '#b-redo', `redone: reject ${m1}`);
  ok(!inSet(m1) && readFileSync(rejFile, 'utf8').includes(`- id: ${m1}\n`), 'undo: the Redo button rejects it again');
  await press(page, 'z', `undone: reject ${m1}`);
  ok(inSet(m1), 'undo: z takes it back again');
  await press(page, 'z', `undone: answerable ${m1}`);
  ok(show(m1).answerable === false, 'undo: z again takes back the write before (answerable)');
  await press(page, 'y', `redone: answerable ${m1}`);
  ok(show(m1).answerable === true, 'undo: y writes it again');
  // a stale undo: refused with the stale write's message, the hand edit kept
  appendFileSync(setFile, '# another hand edit\n');
  const byHand = readFileSync(setFile, 'utf8');
  const stale = await press(page, 'z');
  ok(/changed on disk/.test(stale) && readFileSync(setFile, 'utf8') === byHand, 'undo: a stale undo is refused, nothing written', stale);
  await page.waitForTimeout(2000);

  await page.click('#b-list');
  await page.waitForSelector('#qlist');
  await page.click('#b-list');
  await page.waitForSelector('#question');
  await page.click('#b-help');
  ok(await page.$eval('#help', (h) => !h.classList.contains('hidden')), 'mouse: the Keys button opens the help');
  await page.click('#h-close');
  ok(await page.$eval('#help', (h) => h.classList.contains('hidden')), 'mouse: its Close button closes it');

  // Accessibility: what a grade key acts on is exposed, the help is a modal
  // dialog that takes the focus and gives it back, the shortcuts can be
  // turned off (and stay off), a chunk's text can be scrolled from the keys.
  ok(await page.$$eval('#question .chunk[aria-current="true"]', (cs) => cs.length === 1 && cs[0].classList.contains('focus')),
    'a11y: the focused chunk carries aria-current');
  ok(await page.$$eval('#question .chunk .body', (bs) => bs.length > 0 && bs.every((b) => b.tabIndex === 0)),
    'a11y: each chunk\'s text (a scrolling region) takes the focus');
  await page.focus('#b-help');
  await page.keyboard.press('Enter');
  ok(await page.evaluate(() => { const h = document.getElementById('help');
    return !h.classList.contains('hidden') && h.getAttribute('aria-modal') === 'true' && h.contains(document.activeElement); }),
    'a11y: the help opens as a modal dialog (aria-modal) with the focus in it');
  await page.keyboard.press('Tab');
  ok(await page.evaluate(() => document.getElementById('help').contains(document.activeElement)), 'a11y: Tab stays in the help');
  await page.keyboard.press('Escape');
  ok(await page.evaluate(() => document.getElementById('help').classList.contains('hidden') && document.activeElement.id === 'b-help'),
    'a11y: Escape closes it and gives the focus back to where it was');
  await page.click('#keys-on');
  const keysOff = readFileSync(setFile, 'utf8');
  const offAt = await currentId(page);
  for (const k of ['a', 'j', 'u', '2', 'r']) await page.keyboard.press(k);
  await page.waitForTimeout(300);
  ok(readFileSync(setFile, 'utf8') === keysOff && await currentId(page) === offAt && await page.$('#d-input') === null,
    'a11y: with single-key shortcuts off, letters and digits do nothing');
  await page.reload();
  await page.waitForSelector('#question');
  ok(await page.$eval('#keys-on', (c) => !c.checked), 'a11y: the shortcuts switch stays off after a reload');
  await page.click('#keys-on');
  await page.keyboard.press('Escape');  // out of the switch (a field): keys are commands again
  const onAt = await currentId(page);
  await page.keyboard.press('j');
  ok(await currentId(page) !== onAt, 'a11y: switched on again, the keys work');
  await page.keyboard.press('k');

  // Place: the question and the filters in the location's hash, back after
  // a reload; "next unreviewed" skips what was reviewed.
  await page.keyboard.press('j');
  const placed = await currentId(page);
  ok(page.url().includes('q=' + placed), 'place: the question shown is in the location', page.url());
  await page.reload();
  await page.waitForSelector('#question');
  ok(await currentId(page) === placed, 'place: a reload shows the same question');
  await page.selectOption('#f-status', 'accepted');
  await page.waitForTimeout(100);
  const acceptedId = await currentId(page);
  await page.reload();
  await page.waitForSelector('#question');
  ok(await page.$eval('#f-status', (s) => s.value) === 'accepted' && await currentId(page) === acceptedId,
    'place: a reload keeps the filter and the question', page.url());
  await page.selectOption('#f-status', '');
  await page.keyboard.press('Escape');
  await page.goto(config.set.url);
  await page.waitForSelector('#question');
  await click(page, '#b-next-open');
  const next1 = await currentId(page);
  ok(next1 !== 'q-0001' && ['unreviewed', undefined].includes((show(next1).provenance || {}).review),
    'place: Next unreviewed goes to a question nobody reviewed', next1);
  await page.keyboard.press('g');
  const next2 = await currentId(page);
  ok(next2 !== next1 && ['unreviewed', undefined].includes((show(next2).provenance || {}).review), 'place: g goes to the next one', next2);

  // Hidden characters: shown as marked <U+XXXX> tokens, never obeyed; refused in a tag.
  await page.focus('#f-search');
  await page.keyboard.type('gamma', { delay: 60 });
  await page.waitForTimeout(200);
  ok(await currentId(page) === config.set.hidden, 'hidden: the question with a right-to-left override is found', await currentId(page));
  const qtext = await page.$eval('#q-text', (e) => ({ text: e.textContent, marks: [...e.querySelectorAll('.hc')].map((m) => m.textContent) }));
  ok(qtext.text === 'gamma <U+202E>gnp.exe<U+202C>: which file is it?' && qtext.marks.join(' ') === '<U+202E> <U+202C>',
    'hidden: the override shows as a marked <U+202E>, so "gnp.exe" does not read as "exe.png"', JSON.stringify(qtext));
  await page.keyboard.press('Escape');
  await page.keyboard.press('l');
  await page.waitForSelector('#qlist');
  ok(await page.$eval(`#qlist tr[data-id="${config.set.hidden}"] td:last-child`, (td) => td.querySelectorAll('.hc').length === 2 && !/\u202e/.test(td.textContent)),
    'hidden: the list row marks them too');
  await page.keyboard.press('l');
  await page.waitForSelector('#question');
  await page.keyboard.press('e');
  await page.waitForSelector('#d-input');
  ok((await page.textContent('#d-hidden').catch(() => '')).includes('<U+202E> <U+202C>'), 'hidden: the edit dialog says which hidden characters the text holds');
  await page.keyboard.press('Escape');
  const beforeTag = readFileSync(setFile, 'utf8');
  await page.keyboard.press('t');
  await page.waitForSelector('#d-input');
  await page.keyboard.type('\u202eevil', { delay: 40 });
  const refusal = await press(page, 'Enter');
  ok(/reorders text or takes no width/.test(refusal) && refusal.includes('<U+202E>evil') && readFileSync(setFile, 'utf8') === beforeTag,
    'hidden: a tag holding U+202E is refused, saying why, and nothing is written', refusal);
  await page.keyboard.press('Escape');
  await page.focus('#f-search');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Escape');

  // The whole corpus searched from the page: typed into, a key at a time,
  // no letter runs as a command; then words, a chunk id and a document.
  await page.keyboard.press('k');
  const host = await currentId(page);
  await page.keyboard.press('c');
  ok(await page.evaluate(() => document.activeElement && document.activeElement.id === 'c-search'), 'corpus: c puts the focus in the corpus search');
  const quiet = readFileSync(setFile, 'utf8');
  for (const word of ['warsaw rejected quota', 'Battle of Hastings']) {
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(word, { delay: 60 });
    await page.waitForTimeout(200);
    const f = await page.$eval('#c-search', (e) => ({ focused: document.activeElement === e, value: e.value }));
    ok(f.focused && f.value === word && await page.$('#d-input') === null && await currentId(page) === host,
      `corpus: typing '${word}' keeps the focus and every letter in the corpus search`, JSON.stringify(f));
  }
  ok(readFileSync(setFile, 'utf8') === quiet, 'corpus: no letter typed into the corpus search changed the set');
  await press(page, 'Enter', 'in the corpus for');
  const words = await page.$$eval('#c-hits .chunk', (cs) => cs.map((c) => ({ id: c.dataset.chunk,
    doc: (c.querySelector('.doc') || {}).textContent, title: (c.querySelector('.title') || {}).textContent, text: c.querySelector('.body').textContent })));
  ok(words.length > 1 && words[0].text.includes('Battle of Hastings') && words.every((h) => /battl|hasting/i.test(h.text)) &&
     words.every((h) => h.doc && h.doc.startsWith('document ') && h.title),
    'corpus: words find the chunks holding them, the best first, each with its document and title', JSON.stringify(words.map((h) => [h.id, h.doc, h.title])));
  ok(readFileSync(setFile, 'utf8') === quiet, 'corpus: Enter searched and wrote nothing');
  await page.fill('#c-search', 'harvard-university-p04');
  await click(page, '#c-go', 'in the corpus for');
  const byId = await page.$eval('#c-hits .chunk', (c) => ({ id: c.dataset.chunk, marks: [...c.querySelectorAll('.body .hc')].map((m) => m.textContent) }));
  const zw = (readFileSync(path.join(config.set.dir, 'corpus.jsonl'), 'utf8').split('\n').find((l) => l.includes('"id": "harvard-university-p04"')) || '').split('\u200b').length - 1;
  ok(byId.id === 'harvard-university-p04' && zw > 0 && byId.marks.length === zw && byId.marks.every((m) => m === '<U+200B>'),
    'corpus: a chunk id finds that chunk; its zero-width spaces show as <U+200B>', JSON.stringify(byId));
  await page.fill('#c-search', 'doc:normans.txt');
  await page.focus('#c-search');
  await press(page, 'Enter', 'in the corpus for');
  const docHits = await page.$$eval('#c-hits .chunk', (cs) => cs.map((c) => c.dataset.chunk));
  const normans = readFileSync(path.join(config.set.dir, 'corpus.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"doc": "normans.txt"')).map((l) => JSON.parse(l).id);
  ok(docHits.length === Math.min(20, normans.length) && docHits.every((id, i) => id === normans[i]) &&
     (normans.length <= 20 || (await page.textContent('#corpus')).includes('More chunks match')),
    'corpus: a document\'s name lists its chunks in corpus order (20 at most, saying so)', JSON.stringify([docHits.length, normans.length]));
  const shownBefore = await page.$$eval('#question > .chunk', (cs) => cs.map((c) => c.dataset.chunk));
  const pick = docHits.findIndex((id) => !shownBefore.includes(id));
  const picked = docHits[pick];
  await click(page, `#c-grade-2-${pick}`, `${picked} graded 2 for ${host}`);
  ok(show(host).relevant[picked] === 2, 'corpus: a hit outside the labelled chunks and the BM25 top 5 is labelled grade 2 (in the file)', JSON.stringify(show(host).relevant));
  ok(await page.$eval(`#c-grade-2-${pick}`, (b) => b.getAttribute('aria-pressed') === 'true' && document.activeElement === b),
    'corpus: its button shows the grade, and keeps the focus after the write');
  ok(await page.$(`#question > .chunk[data-chunk="${picked}"]`) !== null, 'corpus: the labelled hit joins the question\'s chunks');
  await page.keyboard.press('Escape');
  await press(page, 'z', `undone: label ${host} / ${picked}`);
  ok(!(picked in show(host).relevant), 'corpus: undo takes the label back');
  await axe(page, 'set: corpus hits');

  // A long chunk scrolls from the keys: Space and Shift+Space move the text
  // of the chunk a grade acts on (at 375 px a paragraph is longer than its box).
  await page.setViewportSize({ width: 375, height: 760 });
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const long = () => page.$eval('#question .chunk.focus .body', (b) => ({ top: b.scrollTop, over: b.scrollHeight > b.clientHeight + 1 }));
  let lc = await long();
  for (let i = 0; i < 6 && !lc.over; i++) { await page.keyboard.press('n'); lc = await long(); }
  ok(lc.over && lc.top === 0, 'keys: a chunk longer than its box is found', JSON.stringify(lc));
  await page.keyboard.press(' ');
  const down = (await long()).top;
  await page.keyboard.press('Shift+ ');
  const up = (await long()).top;
  ok(down > 0 && up < down, 'keys: Space scrolls the chunk\'s text down, Shift+Space back up', JSON.stringify({ down, up }));
  await page.setViewportSize({ width: 1100, height: 760 });

  // the tag with markup shows as text
  const html = await page.content();
  ok(!html.includes('<script>alert(1)'), 'set: nothing from the file becomes markup');
  ok(errors.length === 0, 'set: no script errors or CSP violations', errors.join('\n'));
  await page.close();
}

async function gradePool(context) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(config.pool.url);
  await page.waitForSelector('#pair');
  ok((await page.textContent('#scale')).includes('holds the exact answer'), 'pool: the 0-3 scale is explained');
  const judged = await page.$('#judge');
  ok(judged && await judged.evaluate((e) => e.classList.contains('hidden-grade') && !/grade \d/.test(e.textContent)),
    'pool: the judge\'s grade is hidden before grading');
  await shot(page, 'pool');
  await axe(page, 'pool: a pair');
  await page.keyboard.press('h');
  ok(await page.$eval('#judge', (e) => /grade 0/.test(e.textContent) && e.textContent.includes('judge reason 0 <b>x</b>')),
    'pool: h shows the judge\'s grade and reason (as text)');
  await page.keyboard.press('h');

  const total = await page.evaluate(() => Number(document.getElementById('progress').textContent.match(/of (\d+)/)[1]));
  // the person's grades: 3 - (position mod 4), so some agree with the judge and some do not
  const mine = [];
  const poolReloads = [];
  const countPool = (req) => { if (req.url().endsWith('/api/state')) poolReloads.push(req.url()); };
  page.on('request', countPool);
  for (let i = 0; i < total; i++) {
    const g = 3 - (i % 4);
    mine.push(g);
    await press(page, String(g), `graded ${g}`);
  }
  page.off('request', countPool);
  ok(poolReloads.length === 0, 'pool: grades are shown from the writes\' replies, without loading the whole pool again', String(poolReloads.length));
  await page.waitForSelector('#summary');
  ok(true, `pool: ${total} pairs graded with the keys 0-3, then the summary`);
  await shot(page, 'summary');
  await axe(page, 'pool: the summary', [1280]);
  // the pool file: every pair graded by a person, the judge's grades kept
  const text = readFileSync(config.pool.file, 'utf8');
  const pairs = text.split(/\n  - chunk: /).slice(1);
  const grades = pairs.map((p) => Number((p.match(/\n    grade: (\d)/) || [])[1]));
  ok(JSON.stringify(grades) === JSON.stringify(mine), 'pool: the file holds the grades in order', grades.join(' '));
  ok(pairs.every((p) => /\n    judge: human\n/.test(p) && /\n    reviewed_by: browser-test\n/.test(p) && /\n    reviewed_at: \d{4}-/.test(p)),
    'pool: each pair records judge human, reviewed_by, reviewed_at');
  // the judge graded pairs 0, 2, 4... with (k / 2) mod 4
  let agree = 0, both = 0;
  pairs.forEach((p, i) => {
    const m = p.match(/\n    llm_grade: (\d)\n    llm_judge: llm:fake-judge\n/);
    if (i % 2 === 0) { both++; if (m && Number(m[1]) === (i / 2) % 4 && mine[i] === (i / 2) % 4) agree++; if (!m) agree = -1e9; }
  });
  ok(agree >= 0, 'pool: the judge\'s grades are kept as llm_grade beside the person\'s');
  const shown = await page.$eval('#agreement', (e) => ({ n: Number(e.dataset.n), exact: Number(e.dataset.exact) }));
  ok(shown.n === both && Math.abs(shown.exact - agree / both) < 1e-9,
    'pool: the summary\'s agreement matches the file', JSON.stringify({ shown, both, agree }));
  const said = await page.textContent('#agreement');
  const few = await page.$('#agreement-few');
  ok(/kappa -?\d\.\d{3} \(95% interval -?\d\.\d{3} to -?\d\.\d{3}\)/.test(said) && (both < 30) === (few !== null) &&
     (!few || (await few.textContent()).includes(`Only ${both} pairs compared`)),
    'pool: each kappa with its 95% interval, and a note that so few pairs say little', said);
  // the mouse: back to the pairs, the first pair regraded with its button
  await page.click('#b-summary');
  await page.waitForSelector('#pair');
  for (let i = 0; i < total; i++) await page.click('#b-prev');
  const firstPair = await page.getAttribute('#pair', 'data-chunk');
  await click(page, '#b-grade-1', 'graded 1');
  const regraded = readFileSync(config.pool.file, 'utf8').split(/\n  - chunk: /)[1];
  ok(regraded.startsWith(firstPair) && /\n    grade: 1\n/.test(regraded), 'pool: a grade button writes its grade', regraded.slice(0, 200));
  await click(page, '#b-undo', `undone: grade`);
  const undone = readFileSync(config.pool.file, 'utf8').split(/\n  - chunk: /)[1];
  ok(/\n    grade: 3\n/.test(undone), 'pool: Undo puts the grade before back', undone.slice(0, 200));
  await press(page, 'y', 'redone: grade');
  ok(/\n    grade: 1\n/.test(readFileSync(config.pool.file, 'utf8').split(/\n  - chunk: /)[1]), 'pool: y writes the grade again');
  ok(errors.length === 0, 'pool: no script errors or CSP violations', errors.join('\n'));
  await page.close();
}

let context;
try {
  context = await launch(config, { width: 1100, height: 760 });
} catch (e) {
  ok(false, `chromium starts (${config.chromium})`, e.stack || String(e));
  console.log(`1..${n}`);
  process.exit(1);
}
try {
  for (const [name, fn] of [['set', reviewSet], ['pool', gradePool]]) {
    try {
      await fn(context);
    } catch (e) {
      ok(false, `${name}: checks ran to the end`, e.stack || String(e));
    }
  }
} finally {
  await context.close();
}
console.log(`1..${n}`);
writeFileSync(path.join(config.artifacts, 'review-tap.txt'), `${n - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);

// report-page: the in-browser figures of bench/report.sh, in headless
// Chromium through tests/browser's playwright-core: the page and the floor
// loaded from their files (median of 5), then in the loaded report a word
// typed into the question table's search, a sort and a question picked for
// the cutoff (medians of 5; the old page's <select> of questions when it
// has one instead of the table).
//
// usage: node bench/report-page.mjs CHROMIUM PROFILE_DIR REPORT.html FLOOR.html
import { pathToFileURL } from 'node:url';
import { launch } from '../tests/browser/lib.mjs';

const [chromium, profile, report, floor] = process.argv.slice(2);
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (what, ms, note = '') => console.log(`${what.padEnd(50)} ${ms.toFixed(0).padStart(10)} ms${note}`);
const context = await launch({ chromium, profile }, { width: 1280, height: 900 });
const page = await context.newPage();
// load 'file' and return the ms from navigation to the load event (scripts run)
async function load(file) {
  await page.goto('about:blank');
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return n.loadEventEnd - n.startTime;
  });
}
try {
  const f = [], r = [];
  for (let i = 0; i < 5; i++) { f.push(await load(floor)); r.push(await load(report)); }
  row('floor: a page of as many bytes, drawing nothing', median(f));
  row('the report, loaded to its script done', median(r), `  (${(median(r) / median(f)).toFixed(1)} x the floor)`);
  const table = await page.evaluate(() => !!document.getElementById('qt-search'));
  if (table) {
    const typed = [], sorted = [], picked = [];
    for (let i = 0; i < 5; i++) {
      typed.push(await page.evaluate(() => {
        const s = document.getElementById('qt-search');
        s.value = '';
        s.dispatchEvent(new Event('input'));
        const t0 = performance.now();
        for (const c of 'w01234') { s.value += c; s.dispatchEvent(new Event('input')); }
        document.querySelector('#qtable tbody').getBoundingClientRect();
        return performance.now() - t0;
      }));
      sorted.push(await page.evaluate((i) => {
        const s = document.getElementById('qt-search');
        s.value = '';
        s.dispatchEvent(new Event('input'));
        const o = document.getElementById('qt-sort');
        const t0 = performance.now();
        o.selectedIndex = (i % (o.options.length - 1)) + 1;
        o.dispatchEvent(new Event('change'));
        document.querySelector('#qtable tbody').getBoundingClientRect();
        return performance.now() - t0;
      }, i));
      picked.push(await page.evaluate((i) => {
        const b = document.querySelectorAll('#qtable button.pick')[i + 3];
        const t0 = performance.now();
        b.click();
        document.getElementById('ranked').getBoundingClientRect();
        return performance.now() - t0;
      }, i));
    }
    row('a 6-letter word typed in the search, rows shown', median(typed));
    row('a sort chosen, rows shown', median(sorted));
    row('a question picked for the cutoff', median(picked));
  } else {
    const picked = [];
    for (let i = 0; i < 5; i++)
      picked.push(await page.evaluate((i) => {
        const s = document.getElementById('q');
        const t0 = performance.now();
        s.selectedIndex = (s.selectedIndex + 97 * (i + 1)) % s.options.length;
        s.dispatchEvent(new Event('change'));
        document.getElementById('ranked').getBoundingClientRect();
        return performance.now() - t0;
      }, i));
    row('a question picked in the <select>', median(picked));
  }
} finally {
  await context.close();
}

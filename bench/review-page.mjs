// review-page: the in-browser figures of bench/review.sh (page load, a
// write shown, a key in the list view), medians of 15 runs in headless
// Chromium through tests/browser's playwright-core.
//
// usage: node bench/review-page.mjs CHROMIUM PROFILE_DIR URL
import { launch } from '../tests/browser/lib.mjs';

const [chromium, profile, url] = process.argv.slice(2);
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (what, ms) => console.log(`${what.padEnd(44)} ${ms.toFixed(1).padStart(10)}`);
const context = await launch({ chromium, profile }, { width: 1280, height: 800 });
const page = await context.newPage();
try {
  const loads = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForSelector('#question');
    loads.push(Date.now() - t0);
  }
  row('page load (browser, to the first question)', median(loads));

  // a write shown: grade a chunk 1 and 0 in turn, timed from the
  // key to the status line saying it with the page redrawn
  const writes = [];
  await page.keyboard.press('n');   // the second chunk (a BM25 hit): 1 and 0 both keep the rules
  for (let i = 0; i < 15; i++) {
    const g = String(i % 2);
    const t = await page.evaluate(async (key) => {
      const status = document.getElementById('status');
      const before = document.getElementById('question');
      status.textContent = '';
      const t0 = performance.now();
      document.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      // the status says it, and the question is drawn again with the new grade
      for (;;) {
        const q = document.getElementById('question');
        if (/graded/.test(status.textContent) && q && q !== before && !before.isConnected) break;
        if (status.className === 'error' || performance.now() - t0 > 20000) return NaN;
        await new Promise((r) => setTimeout(r, 1));
      }
      document.getElementById('question').getBoundingClientRect();
      return performance.now() - t0;
    }, g);
    writes.push(t);
    await page.waitForTimeout(100);
  }
  row('a write shown (grade key to page redrawn)', median(writes));

  await page.keyboard.press('l');
  await page.waitForSelector('#qlist');
  const keys = [];
  for (let i = 0; i < 15; i++) {
    keys.push(await page.evaluate(() => {
      const t0 = performance.now();
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
      document.querySelector('#qlist tr.sel').getBoundingClientRect();   // layout done
      return performance.now() - t0;
    }));
  }
  row('a key in the list view (j, layout done)', median(keys));
} finally {
  await context.close();
}

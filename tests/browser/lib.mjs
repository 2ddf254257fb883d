// lib: what the browser checks share: Debian's chromium started through
// playwright-core with a fresh profile and no network services.
import { chromium } from 'playwright-core';

// Return a persistent context (how playwright takes --user-data-dir) on
// 'config.profile', a fresh empty directory the caller made for this run,
// running 'config.chromium' (never a downloaded build). Throws when
// chromium does not start.
export function launch(config, viewport) {
  return chromium.launchPersistentContext(config.profile, {
    executablePath: config.chromium,
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

import puppeteer from 'puppeteer-core';
const base = process.argv[2];
const out = process.argv[3];
const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'] });
for (const [name, steps] of [['simd', 6], ['threads', 2]]) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`${base}/index.html?lesson=${name}`);
  await page.waitForFunction(() => !document.getElementById('loading'), { timeout: 120000 });
  const text = () => page.evaluate(() => document.getElementById('sql-lesson-text')?.textContent || '');
  for (let k = 0; k <= steps; k++) {
    const deadline = Date.now() + 200000;
    while (Date.now() < deadline) {
      const t = await text();
      if (!t.includes('Measuring the lesson') && !t.includes('…')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 1500));
    await page.screenshot({ path: `${out}/${name}-${k + 1}.png` });
    console.log(name, k + 1, JSON.stringify(await text()));
    await page.keyboard.press('PageDown');
  }
  await page.close();
}
await browser.close();

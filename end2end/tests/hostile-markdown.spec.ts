import { expect, test, type Locator, type Page } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// Model output is untrusted. The fixture already fails these stories on any CSP
// violation (an inline style from an aligned table would be one); here we check
// that nothing the model wrote runs, loads or leaves the page.

/** Records what the page requests and every dialog it opens (an `alert` that ran). */
function watch(page: Page) {
  const requested: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { requested, dialogs };
}

/** Sends `prompt`, waits for the turn to finish and opens its reasoning. */
async function hostileTurn(chat: ChatPage, prompt: string): Promise<Locator> {
  await chat.open(MOCKED);
  await chat.send(prompt);
  const turn = chat.assistant();
  // Long scenarios: reasoning and answer each stream it whole, 6 to 8 bytes a chunk.
  await expect(turn).toHaveAttribute('data-status', 'done', { timeout: 45_000 });
  await chat.header(chat.thinking()).click();
  return turn;
}

/** Nothing in the turn is active markup, and nothing ran or loaded. */
async function expectNothingRanOrLoaded(page: Page, turn: Locator, seen: ReturnType<typeof watch>) {
  const found = await turn.evaluate((el) => ({
    elements: el.querySelectorAll('script, img, iframe, object, embed, svg, style, [style], math a, math [href], math [class]').length,
    mathHtml: [...el.querySelectorAll('math *')].filter((node) => node.namespaceURI !== 'http://www.w3.org/1998/Math/MathML').length,
    handlers: [...el.querySelectorAll('*')].filter((node) =>
      [...node.attributes].some((attribute) => attribute.name.startsWith('on')),
    ).length,
    hrefs: [...el.querySelectorAll('[href], [src]')].map((a) => a.getAttribute('href') ?? a.getAttribute('src') ?? ''),
  }));
  expect(found.elements).toBe(0);
  expect(found.mathHtml).toBe(0);
  expect(found.handlers).toBe(0);
  for (const href of found.hrefs) expect(href).toMatch(/^https:\/\//);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
  expect(seen.requested.filter((url) => url.includes('tracker.invalid') || url.startsWith('data:'))).toEqual([]);
}

test('hostile markdown in reasoning and answer is shown, never run or loaded', async ({ page }) => {
  const seen = watch(page);
  const chat = new ChatPage(page);
  const turn = await hostileTurn(chat, 'Render this mock:hostile-markdown');

  for (const part of [turn.locator('.thinking-body'), turn.getByTestId('answer')]) {
    // Raw HTML is visible as text.
    await expect(part).toContainText("<script>window.__pwned = 'script'</script>");
    await expect(part).toContainText('<img src=x onerror=');
    // The safe link works and opens nothing with access to this page.
    const safe = part.getByRole('link', { name: 'safe' });
    await expect(safe).toHaveAttribute('href', 'https://example.com/docs');
    await expect(safe).toHaveAttribute('rel', 'noopener noreferrer');
    // The script links are text: their words remain, their targets do not.
    await expect(part).toContainText('plain');
    await expect(part).toContainText('encoded');
    await expect(part.getByRole('link', { name: 'plain' })).toHaveCount(0);
    await expect(part.getByRole('link', { name: 'encoded' })).toHaveCount(0);
    // The image is a labelled link, not a load.
    await expect(part.locator('a.md-image')).toHaveAttribute('href', /^https:\/\/tracker\.invalid\//);
    await expect(part.locator('a.md-image')).toHaveText('tracker');
    // The footnote shows its label and takes no id (none can collide with the app's).
    await expect(part.locator('.footnote-definition-label')).toHaveText('app');
    await expect(part.locator('[id]')).toHaveCount(0);
    await expect(part.locator('table td').last()).toHaveText('2');
    // Hostile LaTeX (HOSTILE_MATH): link, class, style and character commands,
    // script, data: and tracker URLs show as their source, as code; raw HTML as
    // a formula or in \text is characters in MathML.
    const errors = part.locator('code.math-error');
    await expect(errors).toHaveCount(10);
    await expect(errors.first()).toHaveText("$\\href{javascript:window.__pwned='href'}{click}$");
    await expect(errors.filter({ hasText: 'tracker.invalid/math' })).toHaveText(['$\\href{https://tracker.invalid/math}{m}$']);
    await expect(errors.filter({ hasText: 'svg onload' })).toHaveText(['$$\\url{data:image/svg+xml,<svg onload=alert(5)>}$$']);
    await expect(errors.filter({ hasText: 'htmlClass{code-copy}' })).toHaveCount(1);
    await expect(part.locator('math')).toHaveCount(4);
    await expect(part.locator('math mtext')).toHaveText([
      '<a href=javascript:alert(1) onclick=alert(2)>z</a>',
      '<a href=”javascript:alert(4)”>t</a>',
    ]);
    // `$<img src=x onerror=alert(3)>$`: the tag's characters, one by one.
    await expect(part.locator('math').nth(2)).toContainText('<img');
    await expect(part.locator('.code-copy')).toHaveCount(0);
  }

  await expectNothingRanOrLoaded(page, turn, seen);
  await chat.expectNoConsoleErrors();
});

test('hostile code fences in reasoning and answer are shown, never run or loaded', async ({ page }) => {
  const seen = watch(page);
  const chat = new ChatPage(page);
  const turn = await hostileTurn(chat, 'Render this mock:hostile-code');

  for (const part of [turn.locator('.thinking-body'), turn.getByTestId('answer')]) {
    const blocks = part.locator('.code-block');
    await expect(blocks).toHaveCount(5);
    // Info strings that close the class, open a script or name a data: URL or
    // an image are no language: no label, no class; the code is intact.
    await expect(part.locator('pre code')).toHaveText([
      'one',
      'two',
      'three',
      'four',
      `<img src="https://tracker.invalid/code.png" onerror="window.__pwned='code'">\n<a href="javascript:window.__pwned='codelink'">five</a>`,
    ]);
    await expect(part.locator('.code-lang')).toHaveText(['HTML']);
    await expect(part.locator('code[class]')).toHaveCount(1);
    await expect(part.locator('code[class]')).toHaveAttribute('class', 'language-html');
    // Each block keeps its one copy button, of fixed type and name.
    const buttons = part.locator('.code-head button');
    await expect(buttons).toHaveCount(5);
    for (const button of await buttons.all()) {
      await expect(button).toHaveAttribute('type', 'button');
      await expect(button).toHaveAttribute('aria-label', 'Copy code');
    }
    // The HTML in the code is highlighted text, never elements.
    await expect(part.locator('pre a, pre img')).toHaveCount(0);
  }

  await expectNothingRanOrLoaded(page, turn, seen);
  await chat.expectNoConsoleErrors();
});
